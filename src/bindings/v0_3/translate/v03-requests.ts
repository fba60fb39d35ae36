/**
 * The 0.3 methods as 1.0 operations: for each, the operation it is, its params in 1.0 form
 * (server side: what a 0.3 client sent, read as the 1.0 request) and its 1.0 request in 0.3 form
 * (client side). Results are translated by `v03-results.ts`.
 *
 * Rules beyond the data objects (docs/compat-0.3.md): `configuration.blocking: false` is
 * `returnImmediately: true`; `metadata` on `tasks/get`, `tasks/resubscribe` and the push config
 * methods has no 1.0 field and is refused rather than dropped; a push config `get` without
 * `pushNotificationConfigId` asks for the config whose id is the task id.
 */

import type {
  SendMessageConfiguration,
  SendMessageRequest,
  TaskPushNotificationConfig,
} from '../../../protocol/generated/types.js';
import type { OperationName, OperationRequest } from '../../../protocol/operations.js';
import { isObject, translate, type Issues } from './untranslatable.js';
import {
  defined,
  join,
  readBoolean,
  readInteger,
  readObject,
  readString,
  readStrings,
  readStruct,
} from './v03-fields.js';
import { messageFromV03, messageToV03 } from './v03-message.js';
import { pushConfigFromV03, pushConfigToV03, taskPushConfigFromV03 } from './v03-push.js';
import type { V03Method, V03MessageSendParams } from './v03-types.js';

/** The 1.0 operation of each 0.3 method. */
export const OPERATION_OF: { readonly [M in V03Method]: OperationName } = {
  'message/send': 'SendMessage',
  'message/stream': 'SendStreamingMessage',
  'tasks/get': 'GetTask',
  'tasks/cancel': 'CancelTask',
  'tasks/resubscribe': 'SubscribeToTask',
  'tasks/pushNotificationConfig/set': 'CreateTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/get': 'GetTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/list': 'ListTaskPushNotificationConfigs',
  'tasks/pushNotificationConfig/delete': 'DeleteTaskPushNotificationConfig',
  'agent/getAuthenticatedExtendedCard': 'GetExtendedAgentCard',
};

/** The 0.3 method of each 1.0 operation; `ListTasks` has none in 0.3 JSON-RPC. */
export function methodOf(operation: OperationName): V03Method | undefined {
  return (Object.keys(OPERATION_OF) as V03Method[]).find((m) => OPERATION_OF[m] === operation);
}

function refuseMetadata(params: Record<string, unknown>, method: string, issues: Issues): void {
  const metadata = params.metadata;
  if (metadata === undefined || metadata === null) return;
  if (isObject(metadata) && Object.keys(metadata).length === 0) return;
  issues.add(
    'params.metadata',
    `A2A 1.0 has no metadata on ${method}, so this agent cannot receive it; send none`,
  );
}

function configurationFromV03(
  params: Record<string, unknown>,
  issues: Issues,
): SendMessageConfiguration | undefined {
  const path = 'params.configuration';
  const config = readObject(params, 'configuration', 'params', issues);
  if (config === undefined) return undefined;
  const blocking = readBoolean(config, 'blocking', path, issues);
  const push =
    config.pushNotificationConfig === undefined || config.pushNotificationConfig === null
      ? undefined
      : pushConfigFromV03(
          config.pushNotificationConfig,
          undefined,
          join(path, 'pushNotificationConfig'),
          issues,
        );
  return defined({
    acceptedOutputModes: readStrings(config, 'acceptedOutputModes', path, issues),
    taskPushNotificationConfig: push,
    historyLength: readInteger(config, 'historyLength', path, issues),
    returnImmediately: blocking === undefined ? undefined : !blocking,
  });
}

/**
 * The params of a 0.3 call as the 1.0 request of its operation (still to be validated as such).
 *
 * @throws UntranslatableError naming every field that cannot be translated.
 */
export function requestFromV03(method: V03Method, params: unknown, tenant: string): unknown {
  return translate(`The params of ${method}`, (issues) => {
    if (!isObject(params)) {
      issues.add('params', 'must be an object');
      return {};
    }
    const base = tenant === '' ? {} : { tenant };
    switch (method) {
      case 'message/send':
      case 'message/stream':
        return defined({
          ...base,
          message:
            params.message === undefined
              ? (issues.add('params.message', 'is required'), undefined)
              : messageFromV03(params.message, 'params.message', issues),
          configuration: configurationFromV03(params, issues),
          metadata: readStruct(params, 'metadata', 'params', issues),
        });
      case 'tasks/get':
        refuseMetadata(params, method, issues);
        return defined({
          ...base,
          id: readString(params, 'id', 'params', issues, true),
          historyLength: readInteger(params, 'historyLength', 'params', issues),
        });
      case 'tasks/cancel':
        return defined({
          ...base,
          id: readString(params, 'id', 'params', issues, true),
          metadata: readStruct(params, 'metadata', 'params', issues),
        });
      case 'tasks/resubscribe':
        refuseMetadata(params, method, issues);
        return { ...base, id: readString(params, 'id', 'params', issues, true) };
      case 'tasks/pushNotificationConfig/set': {
        const config = taskPushConfigFromV03(params, 'params', issues);
        return { ...config, ...base };
      }
      case 'tasks/pushNotificationConfig/get': {
        refuseMetadata(params, method, issues);
        const taskId = readString(params, 'id', 'params', issues, true);
        const id = readString(params, 'pushNotificationConfigId', 'params', issues) ?? taskId;
        return defined({ ...base, taskId, id });
      }
      case 'tasks/pushNotificationConfig/list':
        refuseMetadata(params, method, issues);
        return defined({ ...base, taskId: readString(params, 'id', 'params', issues, true) });
      case 'tasks/pushNotificationConfig/delete': {
        refuseMetadata(params, method, issues);
        const taskId = readString(params, 'id', 'params', issues, true);
        const id = readString(params, 'pushNotificationConfigId', 'params', issues, true);
        return defined({ ...base, taskId, id });
      }
      case 'agent/getAuthenticatedExtendedCard':
        return base;
    }
  });
}

function messageSendParamsToV03(request: SendMessageRequest): V03MessageSendParams {
  const config = request.configuration;
  return defined({
    message: messageToV03(request.message),
    configuration:
      config === undefined
        ? undefined
        : defined({
            acceptedOutputModes: config.acceptedOutputModes,
            blocking:
              config.returnImmediately === undefined ? undefined : !config.returnImmediately,
            historyLength: config.historyLength,
            pushNotificationConfig:
              config.taskPushNotificationConfig === undefined
                ? undefined
                : pushConfigToV03(config.taskPushNotificationConfig),
          }),
    metadata: request.metadata,
  });
}

/**
 * A 1.0 request as the params of its 0.3 method. The tenant is not sent: 0.3 has none, and a 0.3
 * interface serves one agent at its URL.
 */
export function requestToV03<N extends OperationName>(
  operation: N,
  request: OperationRequest<N>,
): unknown {
  const r = request as Record<string, unknown>;
  switch (operation) {
    case 'SendMessage':
    case 'SendStreamingMessage':
      return messageSendParamsToV03(request as SendMessageRequest);
    case 'GetTask':
      return defined({ id: r.id, historyLength: r.historyLength });
    case 'CancelTask':
      return defined({ id: r.id, metadata: r.metadata });
    case 'SubscribeToTask':
      return { id: r.id };
    case 'CreateTaskPushNotificationConfig': {
      const config = request as TaskPushNotificationConfig;
      return { taskId: config.taskId, pushNotificationConfig: pushConfigToV03(config) };
    }
    case 'GetTaskPushNotificationConfig':
    case 'DeleteTaskPushNotificationConfig':
      return { id: r.taskId, pushNotificationConfigId: r.id };
    case 'ListTaskPushNotificationConfigs':
      return { id: r.taskId };
    default:
      return {};
  }
}
