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
  /** Token requests to the platform's auth endpoint, by `status`: how often the token cache had to log in. */
  authCalls: 'badge_platform_auth_calls',
} as const;
