/** The chaos run (`npm run chaos`): see `run-chaos.ts`. */
export {
  formatChaosReport,
  runChaos,
  type ChaosOptions,
  type ChaosOrderReport,
  type ChaosReport,
} from './run-chaos';
export type { DocumentFigures } from './ground-truth';
export type { ReconciliationFigures } from './reconciler';
