/** Every workflow the worker registers. */
export { badgeOrder } from './badge-order';
export { replayFailedUploads } from './replay-failed-uploads';
