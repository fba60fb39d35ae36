/**
 * Tandem's own REST route, beside the A2A operations: where a push config's deliveries stand, for
 * the owner of its task (issue: the A2A config message has no field for it).
 *
 * `GET [/{tenant}]/tasks/{taskId}/pushNotificationConfigs/{configId}/deliveryStatus` answers
 * {@link PushDeliveryStatusJson} (`protocol/push-delivery-status.ts`); another principal, or another tenant, gets `TaskNotFoundError`
 * exactly as for a task that does not exist. Errors are the binding's `google.rpc.Status` bodies.
 */

import { toHttpErrorBody } from '../../protocol/error-serialization.js';
import type { PushDeliveryStatusJson } from '../../protocol/push-delivery-status-json.js';
import type { HttpRequest, HttpResponse } from '../server/http-exchange.js';
import { HTTP_JSON_BINDING } from '../../protocol/protocol-bindings.js';
import type { PushDeliveryStatus } from '../../runtime/push-notifications.js';
import { deliveryStatusUnsupported } from '../../runtime/push-notifications.js';
import type { CallReport } from '../server/call-report.js';
import { jsonMediaTypeFor } from '../server/http-media.js';
import type {
  BindingContext,
  BindingReply,
  BindingRequest,
  BindingRoute,
  HttpRefusal,
} from '../server/server-binding.js';
import { openRouteCall } from '../server/prepare-call.js';
import { refusalOf } from '../server/refusals.js';
import { wireErrorOf } from '../server/server-call.js';

/** The route's template below the interface URL (and again under `/{tenant}`). */
export const DELIVERY_STATUS_PATH =
  '/tasks/{task_id=*}/pushNotificationConfigs/{id=*}/deliveryStatus';

/** The wire form of a delivery status. */
export function deliveryStatusJson(status: PushDeliveryStatus): PushDeliveryStatusJson {
  return {
    pendingCount: status.pending,
    failureCount: status.failures,
    failing: status.failing,
    ...(status.nextAttemptAt === undefined ? {} : { nextAttemptTime: status.nextAttemptAt }),
    ...(status.lastSuccessAt === undefined ? {} : { lastSuccessTime: status.lastSuccessAt }),
    ...(status.lastError === undefined ? {} : { lastError: status.lastError }),
    ...(status.lastErrorAt === undefined ? {} : { lastErrorTime: status.lastErrorAt }),
  };
}

/** The routes (GET and HEAD, untenanted and tenanted) over `context`'s handler. */
export function deliveryStatusRoutes(
  context: BindingContext,
  refuse: (refusal: HttpRefusal, request: HttpRequest) => HttpResponse,
): BindingRoute[] {
  const handle = (routed: BindingRequest) => serve(context, refuse, routed);
  return (['GET', 'HEAD'] as const).flatMap((method) => [
    { method, path: DELIVERY_STATUS_PATH, handle },
    { method, path: `/{tenant}${DELIVERY_STATUS_PATH}`, handle },
  ]);
}

async function serve(
  context: BindingContext,
  refuse: (refusal: HttpRefusal, request: HttpRequest) => HttpResponse,
  routed: BindingRequest,
): Promise<BindingReply> {
  const { http, params } = routed;
  const { endpoint, logger } = context;
  const taskId = params.task_id ?? '';
  const mediaType = jsonMediaTypeFor(http.get('accept'));
  try {
    const call = openRouteCall(endpoint, routed, params.tenant ?? '');
    const source = endpoint.deliveryStatus;
    if (source === undefined) throw deliveryStatusUnsupported();
    const status = await source.getPushDeliveryStatus(call, { taskId, id: params.id ?? '' });
    return {
      response: {
        status: 200,
        headers: { 'content-type': mediaType },
        body: JSON.stringify(deliveryStatusJson(status)),
      },
      report: report(taskId, undefined, undefined),
    };
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal !== undefined) {
      return { response: refuse(refusal, http), report: report(taskId, 429, undefined) };
    }
    const wire = wireErrorOf(error, logger, { binding: HTTP_JSON_BINDING });
    return {
      response: {
        status: wire.httpStatus,
        headers: { 'content-type': mediaType },
        body: JSON.stringify(toHttpErrorBody(wire)),
      },
      report: report(taskId, wire.httpStatus, wire.reason),
    };
  }
}

function report(
  taskId: string,
  errorCode: number | undefined,
  errorReason: string | undefined,
): CallReport {
  // Not an A2A operation: the request log names none.
  return { binding: HTTP_JSON_BINDING, operation: undefined, taskId, errorCode, errorReason };
}
