/**
 * The `patched()` ids of the workflows: one per change that alters the commands a running order issues. Each
 * keeps orders started before the change on their old path when they are replayed (CONTRIBUTING.md, "Changing
 * workflow code safely"). An id is never reused; once no order from before its change can still run, its
 * `patched` call becomes `deprecatePatch` and then goes.
 *
 * The workflow asks every patch in its first activation, before its first `await` (`askPatches` in
 * badge-order.ts), never later: a patch asked after a local activity can land in another workflow task on
 * replay than when it was recorded — the activity's result may reach the code one task after its marker was
 * written — and a patch marker is only known to replay within its own task, so that order fails replay with
 * a nondeterminism error (seen under concurrent status queries).
 */
export const PATCHES = {
  /**
   * 0.2.0: the order's input is validated and its options resolved once, by the `resolveOrderInput` local
   * activity, so its answer is in history. Orders started before keep parsing the input in workflow code.
   */
  resolvedInputRecorded: 'resolved-input-recorded',
  /**
   * 0.2.0: sign-in and the stock lookup are local activities, and search attributes the start already set are
   * not published again (two activity round trips and one visibility write fewer per order). Orders started
   * before keep regular activities.
   */
  localPlatformReads: 'local-platform-reads',
  /**
   * 0.3.0: one local activity resolves the input and signs in (`resolveInputAndSignIn`), one activation and one
   * marker fewer per order. It implies both 0.2.0 changes, so a new order asks only this patch: one patch
   * marker (and one `TemporalChangeVersion` upsert) instead of two. Orders started before keep their path.
   */
  inputWithSignIn: 'input-with-sign-in',
  /**
   * 0.4.0: the stock lookup only advises (status view, log, metric); the stock is left out of an order only
   * when order creation answers 404 for it. It implies the 0.3.0 change (and so both 0.2.0 ones): a new order
   * asks only this patch. Orders started before keep ordering without a stock that a complete list lacked, as
   * they did (their state and result say so). Core does not compare an activity's input on replay, so without
   * this guard such an order would replay silently, claiming a stock it was never ordered with.
   */
  stockLookupAdvisory: 'stock-lookup-advisory',
  /**
   * 0.6.0: on a platform honouring `Idempotency-Key`, an order whose creation gives up (its retry window passed,
   * or a final answer) after an attempt that may have created it waits for `reconcileOrder` instead of failing
   * as rejected. It implies the 0.4.0 change (and so the earlier ones): a new order asks only this patch. Orders
   * started before failed as rejected there, and replay so.
   */
  uncertainCreationHeld: 'uncertain-creation-held',
  /**
   * 0.7.0, four fixes shipped together (one id: no order can have some of them without the others). A run about
   * to continue as new uploads a document that a `replaceDocument` queued meanwhile, where 0.6.0 waited for that
   * update, which waits for the upload: the order stayed Running for ever. Creation resumed after
   * `reconcileOrder` `{ notCreated: true }` retries within a retry window counted from the answer, where 0.6.0
   * counted from the first attempt and failed the order as rejected at its first 429 or 503 once that window had
   * passed. `setDocumentOwner` sends the failed documents again but leaves a held one held, where 0.6.0 sent it
   * again under a new key (the platform may hold it). An order whose first step fails for another reason than
   * its input publishes the `Failed` status, as an invalid input does, where 0.6.0 left it `Running`. It implies
   * the 0.6.0 change (and so the earlier ones): a new order asks only this patch. Orders started before keep
   * their path, and replay so.
   */
  fixes070: 'fixes-0.7.0',
} as const;
