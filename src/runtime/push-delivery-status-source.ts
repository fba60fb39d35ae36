/**
 * Tandem's own push delivery status (not an A2A operation: the A2A config message has no field
 * for it), as a seam of its own beside {@link A2ARequestHandler} rather than a method of it: the
 * eleven operations stay the eleven, and nothing that wraps or stands in for a handler has to
 * forward it. The runtime's handlers implement it; the server finds it with
 * {@link pushDeliveryStatusOf} and hands it to the binding that serves the route (HTTP+JSON's
 * `GET /tasks/{taskId}/pushNotificationConfigs/{id}/deliveryStatus`).
 */

import type { CallContext } from './call-context.js';
import type { PushDeliveryStatus, PushDeliveryStatusRequest } from './push-notifications.js';
import type { A2ARequestHandler } from './request-handler.js';

/** Where a push config's deliveries stand, for the owner of its task. */
export interface PushDeliveryStatusSource {
  /**
   * The delivery state of a config, for the owner of its task only (`TaskNotFoundError` for
   * anyone else, as for a task that does not exist).
   */
  getPushDeliveryStatus(
    call: CallContext,
    request: PushDeliveryStatusRequest,
  ): Promise<PushDeliveryStatus>;
}

/** The delivery status `handler` reports, or `undefined` when it reports none (a custom one). */
export function pushDeliveryStatusOf(
  handler: A2ARequestHandler,
): PushDeliveryStatusSource | undefined {
  const source = handler as A2ARequestHandler & Partial<PushDeliveryStatusSource>;
  return typeof source.getPushDeliveryStatus === 'function'
    ? (source as PushDeliveryStatusSource)
    : undefined;
}
