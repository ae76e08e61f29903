/** Every workflow the worker registers. */
export { badgeOrder } from './badge-order';
