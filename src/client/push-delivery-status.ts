/**
 * Reading where a push config's deliveries stand from a Tandem agent: its REST route
 * `GET [/{tenant}]/tasks/{taskId}/pushNotificationConfigs/{configId}/deliveryStatus` (Tandem's
 * own, not an A2A operation, so it is not on `A2AClient`, whose interface may be JSON-RPC or
 * gRPC). Only the owner of the task gets an answer; anyone else gets `TaskNotFoundError`.
 */

import { HttpStatusError, ProtocolViolationError } from '../bindings/client/transport-errors.js';
import { globalFetch, type FetchFunction } from '../bindings/client/http-send.js';
import { fromHttpErrorBody } from '../protocol/error-serialization.js';
import { CURRENT_PROTOCOL_VERSION } from '../protocol/version.js';
import {
  pushDeliveryStatusPath,
  type PushDeliveryStatusJson,
} from '../protocol/push-delivery-status-json.js';

/** What {@link getPushDeliveryStatus} asks for. */
export interface PushDeliveryStatusQuery {
  readonly taskId: string;
  /** The config's id. */
  readonly id: string;
  readonly tenant?: string;
}

/** How {@link getPushDeliveryStatus} calls. */
export interface PushDeliveryStatusOptions {
  /** Credentials and other headers, e.g. `{ authorization: 'Bearer …' }`. */
  readonly headers?: Record<string, string> | undefined;
  readonly fetch?: FetchFunction | undefined;
  readonly signal?: AbortSignal | undefined;
}

/**
 * The delivery status of a push config, from the agent's HTTP+JSON interface at `restUrl` (its
 * `supportedInterfaces` URL for `HTTP+JSON`).
 *
 * @throws the typed A2A error the agent answered (`TaskNotFoundError`, ...), `HttpStatusError`
 *   for a failure without one, `ProtocolViolationError` for an answer that is not a status.
 */
export async function getPushDeliveryStatus(
  restUrl: string,
  query: PushDeliveryStatusQuery,
  options: PushDeliveryStatusOptions = {},
): Promise<PushDeliveryStatusJson> {
  const url =
    restUrl.replace(/\/+$/, '') + pushDeliveryStatusPath(query.taskId, query.id, query.tenant);
  const headers = new Headers(options.headers);
  headers.set('accept', 'application/json');
  // Tandem's route, versioned like the A2A operations beside it.
  if (!headers.has('a2a-version')) headers.set('a2a-version', CURRENT_PROTOCOL_VERSION);
  const init: RequestInit = { method: 'GET', headers };
  if (options.signal !== undefined) init.signal = options.signal;
  const response = await (options.fetch ?? globalFetch)(new Request(url, init));
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    throw (
      fromHttpErrorBody(response.status, body) ??
      new HttpStatusError(
        response.status,
        `HTTP ${response.status} from GET ${url}`,
        text.slice(0, 200),
        response.headers.get('retry-after') ?? undefined,
      )
    );
  }
  if (!isStatus(body)) {
    throw new ProtocolViolationError(`GET ${url} answered something other than a delivery status`);
  }
  return body;
}

function isStatus(value: unknown): value is PushDeliveryStatusJson {
  if (typeof value !== 'object' || value === null) return false;
  const status = value as Record<string, unknown>;
  return (
    typeof status.pendingCount === 'number' &&
    typeof status.failureCount === 'number' &&
    typeof status.failing === 'boolean'
  );
}
