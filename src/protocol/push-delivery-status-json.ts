/**
 * The wire form of Tandem's push delivery status route (REST only, not an A2A operation):
 * `GET [/{tenant}]/tasks/{taskId}/pushNotificationConfigs/{configId}/deliveryStatus` answers a
 * {@link PushDeliveryStatusJson} to the owner of the task. Shared by the server route and the
 * client's `getPushDeliveryStatus`.
 */

/** Where a push config's deliveries stand. Times are RFC 3339 (UTC). */
export interface PushDeliveryStatusJson {
  /** Events of the task not delivered (nor given up) yet. */
  readonly pendingCount: number;
  /** Consecutive failed attempts since the last success. */
  readonly failureCount: number;
  /** Marked after too many consecutive failures: attempts slowed to a probe. */
  readonly failing: boolean;
  /** When the next attempt is made, while a retry waits. */
  readonly nextAttemptTime?: string;
  readonly lastSuccessTime?: string;
  /** Why the last attempt failed (never credentials). */
  readonly lastError?: string;
  readonly lastErrorTime?: string;
}

/** The path of a config's delivery status below a REST interface URL. */
export function pushDeliveryStatusPath(taskId: string, configId: string, tenant?: string): string {
  const path = `/tasks/${encodeURIComponent(taskId)}/pushNotificationConfigs/${encodeURIComponent(configId)}/deliveryStatus`;
  return tenant === undefined || tenant === '' ? path : `/${encodeURIComponent(tenant)}${path}`;
}
