/**
 * The seam between the request handler and push delivery: the four push operations, and a config
 * given inline with a message. The runtime knows only this interface; `src/push` implements it
 * (configs in the task store, the delivery worker, the destination guard), and a handler made
 * without one answers every push operation with `PushNotificationNotSupportedError`.
 */

import type {
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  StreamResponse,
  TaskPushNotificationConfig,
} from '../protocol/generated/types.js';
import type { PushConfigRecord, TaskScope } from '../stores/task-store.js';
import { UnsupportedOperationError } from '../protocol/errors.js';

/** Which config's delivery state to read (Tandem's own request; A2A has none). */
export interface PushDeliveryStatusRequest {
  readonly taskId: string;
  readonly id: string;
}

/** Push notifications for the tasks of one store, in the scope of each caller. */
export interface PushNotifications {
  /**
   * Checks a config before anything is stored, throwing `InvalidParamsError` naming the field
   * under `field` (e.g. `configuration.taskPushNotificationConfig.url`) and why, and
   * `UnsupportedOperationError` when no payload format serves `protocolVersion` (default `1.0`).
   */
  check(config: TaskPushNotificationConfig, field: string, protocolVersion?: string): Promise<void>;
  /**
   * Creates (or replaces) a config of a task visible in `scope`; `TaskNotFoundError` when there
   * is none. `fromSeq`: the events after it are delivered (default: the events from now on).
   */
  create(
    scope: TaskScope,
    config: TaskPushNotificationConfig,
    options?: {
      readonly field?: string;
      readonly fromSeq?: number;
      /** The `Major.Minor` version of the call that creates it (default `1.0`). */
      readonly protocolVersion?: string;
    },
  ): Promise<TaskPushNotificationConfig>;
  /**
   * Checks that a config (with id `id`, when given) can be added to a task visible in `scope`
   * without passing the limit of configs per task, before a message that carries it is
   * admitted; `create` checks again in the same write as the config.
   */
  checkRoom(scope: TaskScope, taskId: string, id?: string): Promise<void>;
  /**
   * The config to store with a task being created (an inline config, already checked), its id
   * generated when absent, remembering the version of the call (`protocolVersion`, default
   * `1.0`) whose payloads its webhook gets; see `TaskRun.pushConfigWithCreation`.
   */
  recordOf(
    config: TaskPushNotificationConfig,
    taskId: string,
    protocolVersion?: string,
  ): PushConfigRecord;
  /** Starts delivering a config stored with its task's creation, here and now. */
  deliver(taskId: string, id: string): Promise<void>;
  get(
    scope: TaskScope,
    request: GetTaskPushNotificationConfigRequest,
  ): Promise<TaskPushNotificationConfig>;
  list(
    scope: TaskScope,
    request: ListTaskPushNotificationConfigsRequest,
  ): Promise<ListTaskPushNotificationConfigsResponse>;
  /** Deletes a config (idempotent); `TaskNotFoundError` when the task is not visible. */
  delete(scope: TaskScope, request: DeleteTaskPushNotificationConfigRequest): Promise<void>;
  /**
   * The delivery state of a config of a task visible in `scope` (the task's owner and tenant);
   * `TaskNotFoundError` otherwise. The A2A config message has no field for it.
   */
  deliveryStatus(scope: TaskScope, taskId: string, id: string): Promise<PushDeliveryStatus>;
}

/**
 * The webhook payload of configs created over an older protocol version: A2A 0.3 posts the Task
 * object (0.3 §9.5) where 1.0 posts a `StreamResponse` (spec 4.3.3). A config remembers the
 * version it was created with, and its deliveries are rendered by the format of that version
 * (`compatV03().pushPayloads`), so that a 0.3 client's webhook reads what it expects.
 */
export interface PushPayloadFormat {
  /** The `Major.Minor` version whose configs it renders (`0.3`). */
  readonly protocolVersion: string;
  /** The `Content-Type` of its POSTs. */
  readonly contentType: string;
  /** The body telling of one event of the task's log, or `undefined` to send nothing for it. */
  render(event: StreamResponse): string | undefined;
}

/** Where a config's deliveries stand (see {@link PushNotifications.deliveryStatus}). */
export interface PushDeliveryStatus {
  /** Events of the task not delivered (nor given up) yet. */
  readonly pending: number;
  /** Consecutive failed attempts since the last success. */
  readonly failures: number;
  /** Marked after too many consecutive failures: attempts slowed to a probe. */
  readonly failing: boolean;
  /** ISO time of the next attempt, while a retry waits. */
  readonly nextAttemptAt?: string;
  readonly lastSuccessAt?: string;
  /** The last failure's reason (no credentials in it). */
  readonly lastError?: string;
  readonly lastErrorAt?: string;
}

/** The answer of a handler that does not report push delivery status (a custom one). */
export function deliveryStatusUnsupported(): UnsupportedOperationError {
  return new UnsupportedOperationError('This agent does not report push delivery status');
}
