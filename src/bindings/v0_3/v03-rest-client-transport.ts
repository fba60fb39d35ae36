/**
 * HTTP+JSON 0.3, client half: the transport the client uses for an `HTTP+JSON` interface at
 * protocol version 0.3. It is the HTTP+JSON transport with a 0.3 dialect, as the JSON-RPC 0.3
 * transport is the JSON-RPC one: each 1.0 call is written as its 0.3 method's params
 * (`v03-requests.ts`), then as the ProtoJSON of the 0.3 proto at its `/v1/...` route (what the
 * official 0.3 SDKs' servers read, `v03-protojson.ts`); each answer is read back the same way
 * into 1.0 and validated like a 1.0 answer. Errors are 0.3 error objects `{ code, message }`
 * (a `google.rpc.Status` body is read too); a 0.3 event with `final: true` ends the stream.
 *
 * `ListTasks` has no route in the 0.3 SDKs (the 0.3 specification names `GET /v1/tasks` but
 * gives it no parameters or result shape): it fails with `UnsupportedOperationError` without a
 * request.
 */

import { fromHttpErrorBody, type JsonRpcErrorObject } from '../../protocol/error-serialization.js';
import { UnsupportedOperationError } from '../../protocol/errors.js';
import type { OperationName } from '../../protocol/operations.js';
import { EXTENSIONS_HEADER, VERSION_HEADER } from '../../protocol/extensions-header.js';
import type {
  ClientTransport,
  ClientTransportContext,
  StreamCall,
  UnaryCall,
} from '../client/client-transport.js';
import type { RestRoute } from '../rest/rest-client-paths.js';
import { createRestDialectTransport, type RestDialect } from '../rest/rest-client-transport.js';
import { isObject, translate } from './translate/untranslatable.js';
import { errorFromV03 } from './translate/v03-errors.js';
import {
  pushConfigName,
  sendParamsToProto,
  streamEventFromProto,
  taskPushConfigToProto,
} from './translate/v03-protojson.js';
import { resultFromProto } from './translate/v03-protojson-results.js';
import { requestToV03 } from './translate/v03-requests.js';
import { resultFromV03 } from './translate/v03-results.js';
import { streamEventFromV03 } from './translate/v03-task.js';
import { translated } from './v03-client-read.js';

type Json = Record<string, unknown>;

/** The interface URL joined with a `/v1/...` path (and query). */
function urlOf(base: string, path: string, query?: URLSearchParams): string {
  const url = new URL(base);
  url.pathname = url.pathname.replace(/\/+$/, '') + path;
  if (query !== undefined) for (const [name, value] of query) url.searchParams.append(name, value);
  return url.toString();
}

const segment = (value: unknown): string => encodeURIComponent(String(value));

function route(call: UnaryCall | StreamCall, method: RestRoute['method'] | undefined): RestRoute {
  const operation: OperationName = call.operation;
  const base = call.url;
  const params = requestToV03(operation, call.message as never) as Json;
  const task = `/v1/tasks/${segment(params.id)}`;
  switch (operation) {
    case 'SendMessage':
    case 'SendStreamingMessage':
      return {
        method: 'POST',
        url: urlOf(base, operation === 'SendMessage' ? '/v1/message:send' : '/v1/message:stream'),
        body: JSON.stringify(sendParamsToProto(params)),
      };
    case 'GetTask': {
      const query = new URLSearchParams();
      if (typeof params.historyLength === 'number') {
        query.set('historyLength', String(params.historyLength));
      }
      return { method: 'GET', url: urlOf(base, task, query) };
    }
    case 'CancelTask':
      return {
        method: 'POST',
        url: urlOf(base, `${task}:cancel`),
        body: JSON.stringify(params.metadata === undefined ? {} : { metadata: params.metadata }),
      };
    case 'SubscribeToTask':
      return method === 'POST'
        ? { method, url: urlOf(base, `${task}:subscribe`), body: '{}' }
        : { method: 'GET', url: urlOf(base, `${task}:subscribe`) };
    case 'CreateTaskPushNotificationConfig': {
      // The proto's CreateTaskPushNotificationConfigRequest: what the SDK's server reads.
      const config = taskPushConfigToProto(params) as Json;
      const taskId = String(params.taskId);
      const id =
        (isObject(params.pushNotificationConfig) && params.pushNotificationConfig.id) || '';
      return {
        method: 'POST',
        url: urlOf(base, `/v1/tasks/${segment(taskId)}/pushNotificationConfigs`),
        body: JSON.stringify({
          parent: `tasks/${taskId}`,
          ...(id === '' ? {} : { configId: id }),
          config: id === '' ? { pushNotificationConfig: config.pushNotificationConfig } : config,
        }),
      };
    }
    case 'GetTaskPushNotificationConfig':
    case 'DeleteTaskPushNotificationConfig':
      return {
        method: operation === 'GetTaskPushNotificationConfig' ? 'GET' : 'DELETE',
        url: urlOf(
          base,
          '/v1/' +
            pushConfigName(String(params.id), String(params.pushNotificationConfigId))
              .split('/')
              .map(encodeURIComponent)
              .join('/'),
        ),
      };
    case 'ListTaskPushNotificationConfigs':
      return { method: 'GET', url: urlOf(base, `${task}/pushNotificationConfigs`) };
    case 'GetExtendedAgentCard':
      return { method: 'GET', url: urlOf(base, '/v1/card') };
    default:
      throw new UnsupportedOperationError(
        `${operation} has no A2A 0.3 HTTP+JSON route; this agent speaks only 0.3`,
      );
  }
}

function isV03ErrorBody(value: unknown): value is JsonRpcErrorObject {
  return isObject(value) && typeof value.code === 'number' && typeof value.message === 'string';
}

/** A2A 0.3 over the HTTP+JSON transport. */
const A2A_V03_REST: RestDialect = {
  // 0.3 section 3.2.3; the SDK's server parses nothing else.
  mediaType: 'application/json',
  route,
  editHeaders(headers) {
    headers.delete(VERSION_HEADER);
    const extensions = headers.get(EXTENSIONS_HEADER);
    if (extensions !== null) headers.set('X-A2A-Extensions', extensions);
  },
  isErrorBody: (value) => isV03ErrorBody(value) || (isObject(value) && isObject(value.error)),
  errorOf: (status, body) =>
    isV03ErrorBody(body) ? errorFromV03(body) : fromHttpErrorBody(status, body),
  resultOf: (operation, body, where) =>
    translated(where, () => resultFromV03(operation, resultFromProto(operation, body))),
  eventOf(value, where) {
    const read = translated(where, () =>
      translate('An A2A 0.3 event', (issues) =>
        streamEventFromV03(streamEventFromProto(value), 'event', issues),
      ),
    );
    return read === undefined ? undefined : { payload: read.event, final: read.final };
  },
};

/** Creates the HTTP+JSON 0.3 transport of an interface (a `ClientTransportFactory`). */
export function createV03RestClientTransport(context: ClientTransportContext): ClientTransport {
  return createRestDialectTransport(context, A2A_V03_REST);
}
