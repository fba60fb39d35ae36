/**
 * The HTTP+JSON/REST binding (spec 11) on the raw wire. Routes are written out from the
 * `google.api.http` annotations of a2a.proto rather than taken from Tandem's route table, so that
 * a wrong table cannot hide behind itself:
 * - `POST /message:send`, `POST /message:stream`, `GET /tasks/{id}`, `GET /tasks`,
 *   `POST /tasks/{id}:cancel`, `GET /tasks/{id}:subscribe`, the four push-config routes under
 *   `/tasks/{taskId}/pushNotificationConfigs`, `GET /extendedAgentCard`;
 * - a `tenant` is the path prefix of the proto's additional binding (`/{tenant}/tasks/...`);
 * - with `body: "*"` every field not in the path goes in the JSON body; GET and DELETE carry them
 *   as query parameters (spec 11.5).
 * Errors are `google.rpc.Status` bodies (spec 11.6) decoded with `fromHttpErrorBody`, whose HTTP
 * status, `error.code` and `error.status` must agree with the decoded type; streams are SSE whose
 * `data:` is a bare `StreamResponse` (spec 11.7).
 */

import {
  fromHttpErrorBody,
  type A2AError,
  type OperationRequest,
  type OperationResponse,
  type StreamResponse,
} from '../../../src/index.js';
import type { SseEvent } from '../../../src/codecs.js';
import {
  BindingViolationError,
  type BindingName,
  type CallOptions,
  type EventStream,
  type Reply,
  type StreamEvent,
  type StreamOptions,
  type StreamingOperation,
  type UnaryOperation,
} from './a2a-driver.js';
import { CallRefusedError, refusalStatusOf } from './connection.js';
import { seqOf, sseEventStream } from './sse-event-stream.js';
import {
  WireDriver,
  activatedExtensionsOf,
  isEventStream,
  parseJson,
  serviceHeaders,
} from './wire-driver.js';

/** The media type of A2A JSON bodies (spec 11.1). */
const A2A_JSON = 'application/a2a+json';

/** One operation's HTTP request: verb, path with its variables filled, the fields they took. */
interface Route {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly path: string;
  readonly pathFields: readonly string[];
}

/** A path segment from a request field that must be there. */
function segment(operation: string, fields: Record<string, unknown>, name: string): string {
  const value = fields[name];
  if (typeof value !== 'string' || value === '') {
    throw new Error(`${operation} over HTTP+JSON needs a non-empty "${name}" for its URL path`);
  }
  return encodeURIComponent(value);
}

function routeOf(
  operation: UnaryOperation | StreamingOperation,
  fields: Record<string, unknown>,
): Route {
  const id = (): string => segment(operation, fields, 'id');
  const taskId = (): string => segment(operation, fields, 'taskId');
  switch (operation) {
    case 'SendMessage':
      return { method: 'POST', path: '/message:send', pathFields: [] };
    case 'SendStreamingMessage':
      return { method: 'POST', path: '/message:stream', pathFields: [] };
    case 'GetTask':
      return { method: 'GET', path: `/tasks/${id()}`, pathFields: ['id'] };
    case 'ListTasks':
      return { method: 'GET', path: '/tasks', pathFields: [] };
    case 'CancelTask':
      return { method: 'POST', path: `/tasks/${id()}:cancel`, pathFields: ['id'] };
    case 'SubscribeToTask':
      return { method: 'GET', path: `/tasks/${id()}:subscribe`, pathFields: ['id'] };
    case 'CreateTaskPushNotificationConfig':
      return {
        method: 'POST',
        path: `/tasks/${taskId()}/pushNotificationConfigs`,
        pathFields: ['taskId'],
      };
    case 'GetTaskPushNotificationConfig':
      return {
        method: 'GET',
        path: `/tasks/${taskId()}/pushNotificationConfigs/${id()}`,
        pathFields: ['taskId', 'id'],
      };
    case 'ListTaskPushNotificationConfigs':
      return {
        method: 'GET',
        path: `/tasks/${taskId()}/pushNotificationConfigs`,
        pathFields: ['taskId'],
      };
    case 'DeleteTaskPushNotificationConfig':
      return {
        method: 'DELETE',
        path: `/tasks/${taskId()}/pushNotificationConfigs/${id()}`,
        pathFields: ['taskId', 'id'],
      };
    case 'GetExtendedAgentCard':
      return { method: 'GET', path: '/extendedAgentCard', pathFields: [] };
  }
}

/** A query parameter value per spec 11.5; nested objects have no query form. */
function queryValue(operation: string, name: string, value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      throw new Error(`${operation}.${name} has no query parameter form (spec 11.5)`);
  }
}

export class RestDriver extends WireDriver {
  readonly binding: BindingName = 'rest';

  async call<N extends UnaryOperation>(
    operation: N,
    request: OperationRequest<N>,
    options: CallOptions = {},
  ): Promise<Reply<OperationResponse<N>>> {
    const response = await this.send(...this.#request(operation, request, options, A2A_JSON));
    await refusal(response, operation);
    if (isEventStream(response)) {
      await response.body?.cancel();
      throw new BindingViolationError(`${operation} answered with an event stream`);
    }
    const raw = await response.text();
    const activatedExtensions = activatedExtensionsOf(response);
    if (!response.ok) {
      return {
        result: undefined,
        error: decode(response, raw, operation),
        activatedExtensions,
        raw,
      };
    }
    expectJson(response, operation);
    const result =
      raw === '' && operation === 'DeleteTaskPushNotificationConfig'
        ? {}
        : parseJson(raw, `The answer to ${operation}`);
    return { result: result as OperationResponse<N>, error: undefined, activatedExtensions, raw };
  }

  async open<N extends StreamingOperation>(
    operation: N,
    request: OperationRequest<N>,
    options: StreamOptions = {},
  ): Promise<EventStream> {
    const controller = new AbortController();
    const signal =
      options.signal === undefined
        ? controller.signal
        : AbortSignal.any([options.signal, controller.signal]);
    const response = await this.send(
      ...this.#request(operation, request, { ...options, signal }, 'text/event-stream'),
    );
    await refusal(response, operation);
    if (!isEventStream(response)) {
      const raw = await response.text();
      if (!response.ok) throw decode(response, raw, operation);
      throw new BindingViolationError(`${operation} answered ${raw.slice(0, 200)}, not a stream`);
    }
    return sseEventStream(response, controller, (event, receivedAt) =>
      streamEventOf(event, receivedAt, operation),
    );
  }

  #request(
    operation: UnaryOperation | StreamingOperation,
    request: object,
    options: StreamOptions,
    accept: string,
  ): [string, RequestInit] {
    const fields: Record<string, unknown> = { ...request };
    const route = routeOf(operation, fields);
    const tenant = fields.tenant;
    delete fields.tenant;
    for (const name of route.pathFields) delete fields[name];
    const url = new URL(this.url);
    const prefix =
      typeof tenant === 'string' && tenant !== '' ? `/${encodeURIComponent(tenant)}` : '';
    url.pathname = `${url.pathname.replace(/\/+$/, '')}${prefix}${route.path}`;
    const headers: Record<string, string> = { accept, ...serviceHeaders(options) };
    const init: RequestInit = { method: route.method, headers };
    if (route.method === 'POST') {
      headers['content-type'] = A2A_JSON;
      init.body = JSON.stringify(fields);
    } else {
      for (const [name, value] of Object.entries(fields)) {
        if (value === undefined) continue;
        for (const item of Array.isArray(value) ? (value as unknown[]) : [value]) {
          url.searchParams.append(name, queryValue(operation, name, item));
        }
      }
    }
    if (options.signal !== undefined) init.signal = options.signal;
    return [url.toString(), init];
  }
}

function expectJson(response: Response, operation: string): void {
  const type = response.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
  if (type !== A2A_JSON && type !== 'application/json') {
    throw new BindingViolationError(`${operation} answered ${type ?? 'no content type'}, not JSON`);
  }
}

/**
 * Throws the {@link CallRefusedError} of a refused call (401, 403, 429): its body must be a
 * `google.rpc.Status` whose `code` is the HTTP status and `status` the gRPC name of it.
 */
async function refusal(response: Response, operation: string): Promise<void> {
  const status = refusalStatusOf(response.status);
  if (status === undefined) return;
  const raw = await response.text();
  expectJson(response, operation);
  const body = parseJson(raw, `The refusal of ${operation}`) as {
    error?: { code?: unknown; status?: unknown; message?: unknown };
  };
  const error = body.error;
  if (
    error?.code !== response.status ||
    error.status !== status ||
    typeof error.message !== 'string'
  ) {
    throw new BindingViolationError(
      `${operation} answered HTTP ${response.status} ${raw.slice(0, 200)}: not a ${status} status`,
    );
  }
  throw new CallRefusedError(status, error.message, {
    httpStatus: response.status,
    wwwAuthenticate: response.headers.get('www-authenticate'),
    retryAfter: response.headers.get('retry-after'),
    raw,
  });
}

/** The typed error of a failed response, checked against its HTTP status and gRPC status. */
function decode(response: Response, raw: string, operation: string): A2AError {
  expectJson(response, operation);
  const body = parseJson(raw, `The error answer to ${operation}`);
  const error = fromHttpErrorBody(response.status, body);
  const where = `${operation} answered HTTP ${response.status} ${raw.slice(0, 200)}`;
  if (error === undefined) throw new BindingViolationError(`${where}: no A2A error`);
  const status = (body as { error?: { code?: unknown; status?: unknown } }).error;
  if (
    error.httpStatus !== response.status ||
    status?.code !== response.status ||
    status.status !== error.grpcStatus
  ) {
    throw new BindingViolationError(
      `${where}: a ${error.type} is HTTP ${error.httpStatus} ${error.grpcStatus}`,
    );
  }
  return error;
}

function streamEventOf(event: SseEvent, receivedAt: number, operation: string): StreamEvent {
  const value = parseJson(event.data, `An event of ${operation}`);
  const error = (value as { error?: { code?: unknown } } | null)?.error;
  if (typeof error === 'object' && error !== null) {
    const status = typeof error.code === 'number' ? error.code : 500;
    throw (
      fromHttpErrorBody(status, value) ??
      new BindingViolationError(`${operation} sent an error event that is no A2A error`)
    );
  }
  return {
    seq: seqOf(event),
    response: value as StreamResponse,
    json: event.data,
    raw: event.data,
    receivedAt,
  };
}
