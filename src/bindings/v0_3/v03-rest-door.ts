/**
 * HTTP+JSON 0.3 (`--compat 0.3`): the `/v1/...` routes of the 0.3 specification (section 3.5.6)
 * below the interface URL of each 1.0 HTTP+JSON binding, declared in the card as an `HTTP+JSON`
 * interface at protocol version 0.3 at the same URL. Each route is one 0.3 method: its path,
 * query and body are read into the kind-tagged params of that method (`v03-protojson.ts`: the
 * official SDKs send ProtoJSON bodies, the specification shows kind-tagged ones; both are read)
 * and the call then goes through the same 0.3 call as JSON-RPC 0.3 (`serveV03Call`: translation to
 * 1.0, the shared call pipeline), whose result is written back as ProtoJSON. Errors are the 0.3
 * error object `{ code, message, data }` with the HTTP status of the 1.0 error; an error in a
 * stream is one last `event: error` with that object, as the official 0.3 SDK sends and reads it.
 *
 * The literal `/v1` segment wins over the 1.0 binding's `/{tenant}/...` routes (the router tries
 * literals first), so with `--compat 0.3` a 1.0 tenant named `v1` is not reachable over HTTP+JSON.
 */

import {
  ContentTypeNotSupportedError,
  InternalError,
  InvalidRequestError,
  JsonParseError,
  type A2AError,
} from '../../protocol/errors.js';
import type { StreamResponse } from '../../protocol/generated/types.js';
import type { HttpRequest, HttpResponse } from '../server/http-exchange.js';
import type { OperationName } from '../../protocol/operations.js';
import { HTTP_JSON_BINDING } from '../../protocol/protocol-bindings.js';
import { encodeSseEvent } from '../../protocol/sse-encoder.js';
import type { Logger } from '../../runtime/logger.js';
import { sseHeaders } from '../server/http-media.js';
import { echoExtensions } from '../server/service-parameters.js';
import type {
  BindingContext,
  BindingReply,
  BindingRequest,
  BindingRoute,
  HttpRefusal,
  RouteMethod,
  ServerBinding,
} from '../server/server-binding.js';
import { BodyRefusal, readRequestText, type RequestBodyRules } from '../server/request-body.js';
import type { SseFraming } from '../server/sse-event-stream.js';
import { isObject } from './translate/untranslatable.js';
import { isV03Interface } from './translate/v03-card.js';
import { errorToV03 } from './translate/v03-errors.js';
import {
  createPushConfigFromBody,
  sendParamsFromBody,
  streamEventToProto,
} from './translate/v03-protojson.js';
import { resultToProto } from './translate/v03-protojson-results.js';
import { streamEventToV03 } from './translate/v03-task.js';
import { V03_VERSION, type V03Method } from './translate/v03-types.js';
import { serveV03Call, v03ReportOf, type V03Outcome, type V03Wire } from './v03-jsonrpc-server.js';

type Json = Record<string, unknown>;

const REQUEST_MEDIA_TYPES = new Set(['application/json', 'application/a2a+json']);

/** One `/v1/...` route: the 0.3 method it calls and how its params are read. */
interface V03RestRoute {
  readonly method: RouteMethod;
  readonly path: string;
  readonly v03Method: V03Method;
  /** Whether the params come from a JSON body. */
  readonly body: boolean;
  readonly params: (path: Readonly<Record<string, string>>, body: Json, query: string) => Json;
}

const taskId = (path: Readonly<Record<string, string>>): Json => ({ id: path.id });

function getTaskParams(path: Readonly<Record<string, string>>, _body: Json, query: string): Json {
  const search = new URLSearchParams(query);
  // The SDK's server reads both spellings; its client sends `historyLength`.
  const length = search.get('historyLength') ?? search.get('history_length');
  if (length === null) return { id: path.id };
  const number = /^-?\d+$/.test(length) ? Number(length) : length;
  return { id: path.id, historyLength: number };
}

/** A cancel body may carry the request's `metadata` (the SDK sends none). */
function cancelParams(path: Readonly<Record<string, string>>, body: Json): Json {
  return body.metadata === undefined ? { id: path.id } : { id: path.id, metadata: body.metadata };
}

const ROUTES: readonly V03RestRoute[] = [
  {
    method: 'POST',
    path: '/v1/message:send',
    v03Method: 'message/send',
    body: true,
    params: (_path, body) => sendParamsFromBody(body),
  },
  {
    method: 'POST',
    path: '/v1/message:stream',
    v03Method: 'message/stream',
    body: true,
    params: (_path, body) => sendParamsFromBody(body),
  },
  {
    method: 'GET',
    path: '/v1/tasks/{id}',
    v03Method: 'tasks/get',
    body: false,
    params: getTaskParams,
  },
  {
    method: 'POST',
    path: '/v1/tasks/{id}:cancel',
    v03Method: 'tasks/cancel',
    body: true,
    params: cancelParams,
  },
  // The proto maps it to GET, the specification's table to POST; the SDK's server takes both.
  {
    method: 'GET',
    path: '/v1/tasks/{id}:subscribe',
    v03Method: 'tasks/resubscribe',
    body: false,
    params: taskId,
  },
  {
    method: 'POST',
    path: '/v1/tasks/{id}:subscribe',
    v03Method: 'tasks/resubscribe',
    body: true,
    params: taskId,
  },
  {
    method: 'POST',
    path: '/v1/tasks/{id}/pushNotificationConfigs',
    v03Method: 'tasks/pushNotificationConfig/set',
    body: true,
    params: (path, body) => createPushConfigFromBody(body, path.id ?? ''),
  },
  {
    method: 'GET',
    path: '/v1/tasks/{id}/pushNotificationConfigs',
    v03Method: 'tasks/pushNotificationConfig/list',
    body: false,
    params: taskId,
  },
  {
    method: 'GET',
    path: '/v1/tasks/{id}/pushNotificationConfigs/{configId}',
    v03Method: 'tasks/pushNotificationConfig/get',
    body: false,
    params: (path) => ({ id: path.id, pushNotificationConfigId: path.configId }),
  },
  {
    method: 'DELETE',
    path: '/v1/tasks/{id}/pushNotificationConfigs/{configId}',
    v03Method: 'tasks/pushNotificationConfig/delete',
    body: false,
    params: (path) => ({ id: path.id, pushNotificationConfigId: path.configId }),
  },
  {
    method: 'GET',
    path: '/v1/card',
    v03Method: 'agent/getAuthenticatedExtendedCard',
    body: false,
    params: () => ({}),
  },
];

function errorBody(error: A2AError): string {
  return JSON.stringify(errorToV03(error));
}

/** Bare ProtoJSON events; a failure is `event: error` with the 0.3 error object. */
class V03RestFraming implements SseFraming {
  readonly binding = HTTP_JSON_BINDING;
  constructor(readonly logger: Logger) {}

  eventData(json: string): string {
    try {
      const event = streamEventToV03(JSON.parse(json) as StreamResponse);
      return 'data: ' + JSON.stringify(streamEventToProto(event));
    } catch (error) {
      this.logger.error({ err: error }, 'a stream event could not be written in A2A 0.3');
      return 'event: error\ndata: ' + errorBody(new InternalError());
    }
  }

  errorFrame(error: A2AError): string {
    return encodeSseEvent({ event: 'error', data: errorBody(error) });
  }

  errorCodeOf(error: A2AError): number {
    return error.httpStatus;
  }
}

const REST_WIRE: V03Wire = {
  result(operation: OperationName, result: unknown): string {
    const body = resultToProto(operation, result);
    return body === undefined ? '' : JSON.stringify(body);
  },
  error: errorBody,
  framing: (logger) => new V03RestFraming(logger),
};

const errorCodeOf = (error: A2AError): number => error.httpStatus;

function responseOf(outcome: V03Outcome): HttpResponse {
  const reply = outcome.reply;
  const headers: Record<string, string> = {};
  echoExtensions(headers, outcome.activatedExtensions ?? [], V03_VERSION);
  switch (reply.kind) {
    case 'stream':
      return { status: 200, headers: { ...sseHeaders(), ...headers }, sse: reply.stream };
    case 'empty':
      return { status: 204, headers };
    case 'body': {
      const error = outcome.error;
      if (error === undefined && reply.body === '') return { status: 204, headers };
      const status = reply.refusal?.status ?? error?.httpStatus ?? 200;
      return {
        status,
        headers: { 'content-type': 'application/json', ...headers, ...reply.refusal?.headers },
        body: reply.body,
      };
    }
  }
}

/** The `/v1/...` routes of one agent's HTTP+JSON interface. */
class V03RestDoor implements ServerBinding {
  readonly protocolBinding = HTTP_JSON_BINDING;
  readonly protocolVersion = V03_VERSION;
  readonly routes: readonly BindingRoute[];
  readonly #context: BindingContext;
  readonly #bodyRules: RequestBodyRules;

  constructor(
    readonly path: string,
    readonly refuse: (refusal: HttpRefusal, request: HttpRequest) => HttpResponse,
    context: BindingContext,
  ) {
    this.#context = context;
    this.#bodyRules = {
      maxBodyBytes: context.maxBodyBytes,
      logger: context.logger,
      mediaTypes: REQUEST_MEDIA_TYPES,
      unsupportedMediaType: (contentType) =>
        new ContentTypeNotSupportedError(
          `Content-Type ${JSON.stringify(contentType.slice(0, 100))} is not supported; send application/json`,
        ),
    };
    this.routes = ROUTES.map((route) => ({
      method: route.method,
      path: route.path,
      handle: (request: BindingRequest) => this.#serve(route, request),
    }));
  }

  async #serve(route: V03RestRoute, routed: BindingRequest): Promise<BindingReply> {
    const request = routed.http;
    const body = route.body ? await this.#readBody(request) : {};
    if (body instanceof BodyRefusal) {
      const outcome: V03Outcome = {
        reply: { kind: 'body', body: errorBody(body.error) },
        operation: undefined,
        taskId: undefined,
        error: body.error,
      };
      const response = {
        ...responseOf(outcome),
        status: body.status,
        closeConnection: body.closeConnection,
      };
      return { response, report: v03ReportOf(HTTP_JSON_BINDING, outcome, errorCodeOf) };
    }
    const tenant =
      this.#context
        .agentInterfaces(request)
        .find((i) => isV03Interface(i) && i.protocolBinding === HTTP_JSON_BINDING)?.tenant ?? '';
    const outcome = await serveV03Call(
      this.#context.endpoint,
      {
        method: route.v03Method,
        params: route.params(routed.params, body, request.query),
        idToken: 'null',
        notification: false,
        source: routed,
        tenant,
        wire: REST_WIRE,
      },
      this.#context.logger,
    );
    return {
      response: responseOf(outcome),
      report: v03ReportOf(HTTP_JSON_BINDING, outcome, errorCodeOf),
    };
  }

  /** The JSON object of a body (`{}` when empty), or why it is refused. */
  async #readBody(request: HttpRequest): Promise<Json | BodyRefusal> {
    const text = await readRequestText(request, this.#bodyRules);
    if (text instanceof BodyRefusal) return text;
    if (text.trim() === '') return {};
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return new BodyRefusal(400, new JsonParseError('The request body is not valid JSON'));
    }
    if (!isObject(value)) {
      return new BodyRefusal(
        400,
        new InvalidRequestError('The request body must be a JSON object'),
      );
    }
    return value;
  }
}

/**
 * The bindings of an agent with HTTP+JSON 0.3: each 1.0 HTTP+JSON binding is followed by the
 * `/v1/...` routes at its path. Other bindings are kept as they are.
 */
export function withV03Rest(
  bindings: readonly ServerBinding[],
  context: BindingContext,
): ServerBinding[] {
  return bindings.flatMap((binding) =>
    binding.protocolBinding === HTTP_JSON_BINDING && binding.protocolVersion !== V03_VERSION
      ? [binding, new V03RestDoor(binding.path, (r, q) => binding.refuse(r, q), context)]
      : [binding],
  );
}
