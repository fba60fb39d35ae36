/**
 * A 1.0 request as A2A 0.3 HTTP+JSON and gRPC carry it: first the kind-tagged params of the 0.3
 * method (`requestToV03`, the translator the client uses), then the ProtoJSON of the 0.3 proto's
 * request message, which is both the gRPC message and the HTTP+JSON body (`/v1/...` routes of
 * 0.3 section 3.5.6, as the official 0.3 SDKs serve them). Built from the 0.3 translators, in the
 * same shapes as Tandem's 0.3 client transports send.
 */

import { UsageError } from '../../protocol/local-errors.js';
import type { OperationName } from '../../protocol/operations.js';
import { isObject } from '../../bindings/v0_3/translate/untranslatable.js';
import {
  pushConfigName,
  sendParamsToProto,
  taskPushConfigToProto,
} from '../../bindings/v0_3/translate/v03-protojson.js';
import { requestToV03 } from '../../bindings/v0_3/translate/v03-requests.js';
import { taskName } from '../../bindings/v0_3/v03-grpc-codec.js';

type Json = Record<string, unknown>;

function present(value: Json): Json {
  return Object.fromEntries(
    Object.entries(value).filter(([, member]) => member !== undefined && member !== ''),
  );
}

/** The kind-tagged 0.3 params of a 1.0 request. */
function paramsOf(operation: OperationName, request: object): Json {
  const params = requestToV03(operation, request as never);
  return isObject(params) ? params : {};
}

/** The `CreateTaskPushNotificationConfigRequest` of the 0.3 proto, in ProtoJSON. */
function createPushConfig(params: Json): Json {
  const config = taskPushConfigToProto(params) as Json;
  const inner = isObject(params.pushNotificationConfig) ? params.pushNotificationConfig : {};
  const id = typeof inner.id === 'string' ? inner.id : '';
  return {
    parent: taskName(params.taskId),
    ...(id === '' ? {} : { configId: id }),
    config: id === '' ? { pushNotificationConfig: config.pushNotificationConfig } : config,
  };
}

/**
 * The ProtoJSON of the 0.3 request message of an operation (the gRPC message of
 * `a2a.v1.A2AService`).
 *
 * @throws UsageError for an operation 0.3 has no method for (`ListTasks`).
 */
export function v03ProtoRequest(operation: OperationName, request: object): Json {
  const params = paramsOf(operation, request);
  switch (operation) {
    case 'SendMessage':
    case 'SendStreamingMessage':
      return sendParamsToProto(params) as Json;
    case 'GetTask':
      return present({ name: taskName(params.id), historyLength: params.historyLength });
    case 'CancelTask':
    case 'SubscribeToTask':
      return { name: taskName(params.id) };
    case 'CreateTaskPushNotificationConfig':
      return createPushConfig(params);
    case 'GetTaskPushNotificationConfig':
    case 'DeleteTaskPushNotificationConfig':
      return { name: pushConfigName(String(params.id), String(params.pushNotificationConfigId)) };
    case 'ListTaskPushNotificationConfigs':
      return { parent: taskName(params.id) };
    case 'GetExtendedAgentCard':
      return {};
    case 'ListTasks':
      throw new UsageError('ListTasks has no A2A 0.3 method; the check must not send it');
  }
}

/** An HTTP+JSON 0.3 request: method, path below the interface URL, query and body. */
export interface V03Route {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly path: string;
  readonly query?: URLSearchParams;
  readonly body?: string;
}

const segment = (value: unknown): string => encodeURIComponent(String(value));

/**
 * The HTTP+JSON 0.3 route of an operation (0.3 section 3.5.6).
 *
 * @throws UsageError for an operation 0.3 has no route for (`ListTasks`).
 */
export function v03Route(
  operation: OperationName,
  request: object,
  verb: 'GET' | 'POST' | undefined,
): V03Route {
  const params = paramsOf(operation, request);
  const task = `/v1/tasks/${segment(params.id)}`;
  switch (operation) {
    case 'SendMessage':
    case 'SendStreamingMessage':
      return {
        method: 'POST',
        path: operation === 'SendMessage' ? '/v1/message:send' : '/v1/message:stream',
        body: JSON.stringify(sendParamsToProto(params)),
      };
    case 'GetTask': {
      const query = new URLSearchParams();
      if (typeof params.historyLength === 'number') {
        query.set('historyLength', String(params.historyLength));
      }
      return { method: 'GET', path: task, query };
    }
    case 'CancelTask':
      return { method: 'POST', path: `${task}:cancel`, body: '{}' };
    case 'SubscribeToTask':
      return verb === 'GET'
        ? { method: 'GET', path: `${task}:subscribe` }
        : { method: 'POST', path: `${task}:subscribe`, body: '{}' };
    case 'CreateTaskPushNotificationConfig':
      return {
        method: 'POST',
        path: `/v1/tasks/${segment(params.taskId)}/pushNotificationConfigs`,
        body: JSON.stringify(createPushConfig(params)),
      };
    case 'GetTaskPushNotificationConfig':
    case 'DeleteTaskPushNotificationConfig':
      return {
        method: operation === 'GetTaskPushNotificationConfig' ? 'GET' : 'DELETE',
        path: `${task}/pushNotificationConfigs/${segment(params.pushNotificationConfigId)}`,
      };
    case 'ListTaskPushNotificationConfigs':
      return { method: 'GET', path: `${task}/pushNotificationConfigs` };
    case 'GetExtendedAgentCard':
      return { method: 'GET', path: '/v1/card' };
    case 'ListTasks':
      throw new UsageError('ListTasks has no A2A 0.3 route; the check must not send it');
  }
}
