/**
 * Tasks, events, requests and results between the kind-tagged JSON of A2A 0.3 (what the rest of
 * this folder translates to and from 1.0) and the ProtoJSON of the 0.3 proto, which the official
 * 0.3 SDKs (JavaScript and Python) put in HTTP+JSON bodies instead of the shapes the 0.3
 * specification shows. 0.3 over HTTP+JSON is thus ProtoJSON → kind-tagged → 1.0 on the way in and
 * back on the way out: one translation to 1.0, and this thin layer in front of it. Rules
 * (docs/compat-0.3.md):
 *
 * - `TASK_STATE_CANCELLED` is `canceled`, `TASK_STATE_UNSPECIFIED` is `unknown`; `ROLE_*` as in
 *   `v03-protojson-message.ts`.
 * - Proto3 defaults: `blocking` absent from a ProtoJSON `configuration` is `false` (as the SDKs
 *   read it), so a client writes `blocking: true` whenever it wants to wait; `historyLength: 0`
 *   in a body is "not set".
 * - A `TaskPushNotificationConfig` is named `tasks/{taskId}/pushNotificationConfigs/{id}`.
 */

import { isObject } from './untranslatable.js';
import {
  artifactFromProto,
  artifactToProto,
  messageFromProto,
  messageToProto,
} from './v03-protojson-message.js';

type Json = Record<string, unknown>;

const STATES_TO_PROTO: Readonly<Record<string, string>> = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  canceled: 'TASK_STATE_CANCELLED',
  failed: 'TASK_STATE_FAILED',
  rejected: 'TASK_STATE_REJECTED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
  unknown: 'TASK_STATE_UNSPECIFIED',
};
const STATES_FROM_PROTO: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(STATES_TO_PROTO).map(([json, proto]) => [proto, json]),
);

function present(value: Json): Json {
  const out: Json = {};
  for (const [key, member] of Object.entries(value)) {
    if (member !== undefined && member !== '') out[key] = member;
  }
  return out;
}

function list(value: unknown, each: (item: unknown) => unknown): unknown {
  return Array.isArray(value) ? value.map(each) : value;
}

function statusToProto(status: unknown): unknown {
  if (!isObject(status)) return status;
  const state = status.state;
  return present({
    state: typeof state === 'string' ? (STATES_TO_PROTO[state] ?? state) : state,
    message: status.message === undefined ? undefined : messageToProto(status.message),
    timestamp: status.timestamp,
  });
}

function statusFromProto(status: unknown): unknown {
  if (!isObject(status)) return status;
  const state = status.state ?? 'TASK_STATE_UNSPECIFIED';
  const message = status.message ?? status.update;
  return present({
    state: typeof state === 'string' ? (STATES_FROM_PROTO[state] ?? state) : state,
    message: message === undefined || message === null ? undefined : messageFromProto(message),
    timestamp: status.timestamp,
  });
}

/** A kind-tagged 0.3 task as ProtoJSON. */
export function taskToProto(task: unknown): unknown {
  if (!isObject(task)) return task;
  return present({
    id: task.id,
    contextId: task.contextId,
    status: statusToProto(task.status),
    artifacts: list(task.artifacts, artifactToProto),
    history: list(task.history, messageToProto),
    metadata: task.metadata,
  });
}

/** A ProtoJSON 0.3 task as kind-tagged JSON. */
export function taskFromProto(task: unknown): unknown {
  if (!isObject(task) || task.kind !== undefined) return task;
  return present({
    kind: 'task',
    id: task.id,
    contextId: task.contextId ?? task.context_id,
    status: statusFromProto(task.status ?? {}),
    artifacts: list(task.artifacts, artifactFromProto),
    history: list(task.history, messageFromProto),
    metadata: task.metadata,
  });
}

/** A kind-tagged 0.3 stream event (or `message/send` result) as a ProtoJSON `StreamResponse`. */
export function streamEventToProto(event: unknown): unknown {
  if (!isObject(event)) return event;
  switch (event.kind) {
    case 'task':
      return { task: taskToProto(event) };
    case 'message':
      return { message: messageToProto(event) };
    case 'status-update':
      return {
        statusUpdate: present({
          taskId: event.taskId,
          contextId: event.contextId,
          status: statusToProto(event.status),
          final: event.final === true ? true : undefined,
          metadata: event.metadata,
        }),
      };
    case 'artifact-update':
      return {
        artifactUpdate: present({
          taskId: event.taskId,
          contextId: event.contextId,
          artifact: artifactToProto(event.artifact),
          append: event.append === true ? true : undefined,
          lastChunk: event.lastChunk === true ? true : undefined,
          metadata: event.metadata,
        }),
      };
    default:
      return event;
  }
}

/**
 * A ProtoJSON `StreamResponse` or `SendMessageResponse` as the kind-tagged event or result; a
 * kind-tagged value is returned as it is.
 */
export function streamEventFromProto(response: unknown): unknown {
  if (!isObject(response) || response.kind !== undefined) return response;
  const status = response.statusUpdate ?? response.status_update;
  const artifact = response.artifactUpdate ?? response.artifact_update;
  const message = response.message ?? response.msg;
  if (isObject(response.task)) return taskFromProto(response.task);
  if (isObject(message)) return messageFromProto(message);
  if (isObject(status)) {
    return present({
      kind: 'status-update',
      taskId: status.taskId ?? status.task_id,
      contextId: status.contextId ?? status.context_id,
      status: statusFromProto(status.status ?? {}),
      final: status.final ?? false,
      metadata: status.metadata,
    });
  }
  if (isObject(artifact)) {
    return present({
      kind: 'artifact-update',
      taskId: artifact.taskId ?? artifact.task_id,
      contextId: artifact.contextId ?? artifact.context_id,
      artifact: artifactFromProto(artifact.artifact),
      append: artifact.append,
      lastChunk: artifact.lastChunk ?? artifact.last_chunk,
      metadata: artifact.metadata,
    });
  }
  return response;
}

/** The resource name of a push config. */
export function pushConfigName(taskId: string, id: string): string {
  return `tasks/${taskId}/pushNotificationConfigs/${id}`;
}

/** The task id and config id of a push config's resource name, when it is one. */
export function parsePushConfigName(name: unknown): { taskId: string; id: string } | undefined {
  if (typeof name !== 'string') return undefined;
  const match = /^tasks\/([^/]+)\/pushNotificationConfigs\/([^/]+)$/.exec(name);
  return match === null ? undefined : { taskId: match[1] as string, id: match[2] as string };
}

/** A ProtoJSON `PushNotificationConfig` as kind-tagged JSON (the same members, proto3 defaults). */
function pushConfigFromProto(config: unknown): unknown {
  if (!isObject(config)) return config;
  const auth = config.authentication;
  return present({
    id: config.id,
    url: config.url,
    token: config.token,
    authentication: isObject(auth)
      ? present({ schemes: auth.schemes ?? [], credentials: auth.credentials })
      : auth,
  });
}

/** A kind-tagged `TaskPushNotificationConfig` as ProtoJSON. */
export function taskPushConfigToProto(config: unknown): unknown {
  if (!isObject(config)) return config;
  const inner = isObject(config.pushNotificationConfig) ? config.pushNotificationConfig : {};
  const taskId = typeof config.taskId === 'string' ? config.taskId : '';
  const id = typeof inner.id === 'string' ? inner.id : taskId;
  return { name: pushConfigName(taskId, id), pushNotificationConfig: present({ ...inner }) };
}

/**
 * The body of `POST /v1/tasks/{id}/pushNotificationConfigs` as the kind-tagged params of
 * `tasks/pushNotificationConfig/set`. Three forms are read: the proto's
 * `CreateTaskPushNotificationConfigRequest` (`{ parent, configId, config }`, what the SDK's server
 * reads; the specification's `{ config }` is one), a bare ProtoJSON `TaskPushNotificationConfig`
 * (`{ name, pushNotificationConfig }`, what the SDK's client sends), and the kind-tagged
 * `{ taskId, pushNotificationConfig }`. The task is the one of the URL path.
 */
export function createPushConfigFromBody(body: Json, taskId: string): Json {
  const config = isObject(body.config) ? body.config : body;
  const inner = config.pushNotificationConfig ?? config.push_notification_config;
  const read = pushConfigFromProto(inner);
  const named = parsePushConfigName(config.name);
  const configId = body.configId ?? body.config_id ?? named?.id;
  if (isObject(read) && read.id === undefined && typeof configId === 'string' && configId !== '') {
    read.id = configId;
  }
  return { taskId, pushNotificationConfig: read };
}

/** A ProtoJSON `TaskPushNotificationConfig` as kind-tagged JSON. */
export function taskPushConfigFromProto(config: unknown): unknown {
  if (!isObject(config) || config.taskId !== undefined) return config;
  const named = parsePushConfigName(config.name);
  const read = pushConfigFromProto(config.pushNotificationConfig);
  if (isObject(read) && read.id === undefined && named !== undefined) read.id = named.id;
  return { taskId: named?.taskId, pushNotificationConfig: read };
}

/**
 * The body of `message:send` / `message:stream` as kind-tagged `MessageSendParams`. A body whose
 * message is kind-tagged (the specification's reading) is kept as it is; a ProtoJSON one (the
 * SDKs') is translated, with its proto3 defaults.
 */
export function sendParamsFromBody(body: Json): Json {
  const message = body.message ?? body.request;
  if (isObject(message) && message.kind !== undefined) return body;
  const config = body.configuration;
  return present({
    message: messageFromProto(message),
    configuration: isObject(config)
      ? present({
          acceptedOutputModes: config.acceptedOutputModes ?? config.accepted_output_modes,
          blocking: config.blocking ?? false,
          historyLength:
            (config.historyLength ?? config.history_length) === 0
              ? undefined
              : (config.historyLength ?? config.history_length),
          pushNotificationConfig: pushConfigFromProto(
            config.pushNotification ?? config.push_notification ?? config.pushNotificationConfig,
          ),
        })
      : config,
    metadata: body.metadata,
  });
}

/** Kind-tagged `MessageSendParams` as the ProtoJSON body of `message:send` / `message:stream`. */
export function sendParamsToProto(params: unknown): unknown {
  if (!isObject(params)) return params;
  const config = isObject(params.configuration) ? params.configuration : {};
  return present({
    message: messageToProto(params.message),
    configuration: present({
      acceptedOutputModes: config.acceptedOutputModes,
      pushNotification: config.pushNotificationConfig,
      historyLength: config.historyLength,
      // Absent is false in proto3: say true to wait, as 0.3 JSON's absent does.
      blocking: config.blocking === false ? undefined : true,
    }),
    metadata: params.metadata,
  });
}
