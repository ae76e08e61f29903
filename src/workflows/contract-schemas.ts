/**
 * The contract's zod schemas for workflow code, loaded when workflow code first parses something. A workflow
 * execution evaluates every module it imports (the bundle keeps a module cache per execution), and building the
 * contract's schemas costs an order about 2 ms of CPU; a new order parses nothing in workflow code (its input is
 * resolved by the `resolveOrderInput` activity), so only an update's validator and the replay of orders from
 * before 0.2.0 load them.
 */
import type * as Contract from '../contract';

/** The contract module (src/contract.ts), evaluated on the first call in this workflow execution. */
export function contractSchemas(): typeof Contract {
  // A plain require: webpack bundles the module as usual but evaluates it only when this line runs.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('../contract') as typeof Contract;
}
