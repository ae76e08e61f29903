/**
 * Names of the service's own metrics. They are served on the same Prometheus endpoint as the SDK's metrics
 * (which the SDK prefixes with `temporal_`; ours are created through the same meter).
 */
export const METRIC_NAMES = {
  /** Badge orders that ended, by `outcome` (completed, failed, cancelled) and `failure_type`. */
  orders: 'badge_orders',
  /** Document uploads that ended, after all retries, by `outcome` (uploaded, failed). */
  documents: 'badge_documents',
  /** HTTP attempts to the platform, by `route`, `method` and `status` (a code, network-error or timeout). */
  platformRequests: 'badge_platform_requests',
  /** Histogram: duration of each HTTP attempt to the platform in ms, by `route` and `method`. */
  platformRequestDuration: 'badge_platform_request_duration',
  /** Token requests to the platform's auth endpoint, by `status`: how often the token cache had to log in. */
  authCalls: 'badge_platform_auth_calls',
  /**
   * Orders that asked for a stock, by what the stock lookup advised (`advice`: listed, unlisted, unknown) and
   * what order creation did with the stock (`platform`: accepted, or refused with 404). `unlisted`+`accepted`
   * or `listed`+`refused` means the list is misread or stale; the lookup never decides either way.
   */
  stockAdvice: 'badge_stock_advice',
  /** Gauge: open orders by `status` (BadgeOrderStatus: Running, AwaitingRepair, AwaitingReconciliation). */
  ordersInStatus: 'badge_orders_in_status',
  /** Gauge: age in seconds of the oldest open order in `status` (AwaitingRepair, AwaitingReconciliation). */
  oldestWaitingSeconds: 'badge_orders_oldest_waiting_seconds',
  /** Gauge: Unix time the nightly replay last completed (absent until it has, since the worker started). */
  replayLastSuccess: 'badge_replay_last_success_timestamp_seconds',
  /** Gauge: Unix time a nightly replay last failed, timed out or was terminated (0 when none did). */
  replayLastFailure: 'badge_replay_last_failure_timestamp_seconds',
  /** Gauge: 1 when the nightly replay's Schedule exists and is not paused, else 0. */
  replayScheduleActive: 'badge_replay_schedule_active',
} as const;
