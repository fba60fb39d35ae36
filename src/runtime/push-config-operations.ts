/**
 * The push config operations of a request handler (create, get, list, delete) and the config
 * given inline with a message, each in the scope of its caller. Kept apart from the handler
 * because they only translate a call into the {@link PushNotifications} seam: without one, every
 * operation answers `PushNotificationNotSupportedError`.
 */

import type {
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  SendMessageRequest,
  TaskPushNotificationConfig,
} from '../protocol/generated/types.js';
import { pushNotificationsUnavailable } from './agent-capabilities.js';
import type { CallContext } from './call-context.js';
import type {
  PushDeliveryStatus,
  PushDeliveryStatusRequest,
  PushNotifications,
} from './push-notifications.js';
import type { TaskExecution } from './task-execution.js';
import type { TaskScopes } from './task-scopes.js';

/** Where an inline push config sits in a SendMessage request, for its errors. */
export const INLINE_PUSH_FIELD = 'configuration.taskPushNotificationConfig';

/** The push operations of one agent's handler. */
export class PushConfigOperations {
  readonly #push: PushNotifications | undefined;
  readonly #scopes: TaskScopes;
  /** The id of the config each execution's task is created with. */
  readonly #withCreation = new WeakMap<TaskExecution, string>();

  /** `push` absent: push is off, and every operation says so. */
  constructor(push: PushNotifications | undefined, scopes: TaskScopes) {
    this.#push = push;
    this.#scopes = scopes;
  }

  #require(): PushNotifications {
    if (this.#push === undefined) throw pushNotificationsUnavailable();
    return this.#push;
  }

  /**
   * Checks the inline config of a message, if it has one, before anything is stored: its
   * destination, and for a message continuing a task that the task has room for one more.
   * `undefined` for a message without one (most messages): nothing to wait for.
   */
  checkInline(call: CallContext, request: SendMessageRequest): Promise<void> | undefined {
    const inline = request.configuration?.taskPushNotificationConfig;
    return inline === undefined ? undefined : this.#checkInline(call, request, inline);
  }

  async #checkInline(
    call: CallContext,
    request: SendMessageRequest,
    inline: TaskPushNotificationConfig,
  ): Promise<void> {
    const push = this.#require();
    await push.check(inline, INLINE_PUSH_FIELD, call.protocolVersion);
    const taskId = request.message.taskId;
    if (taskId !== undefined && taskId !== '') {
      const id = inline.id === undefined || inline.id === '' ? undefined : inline.id;
      await push.checkRoom(this.#scopes.of(call), taskId, id);
    }
  }

  /**
   * For a message that creates a task: hands its inline config to the run, which stores it in
   * the very write that creates the task (every event from the first), so that no crash can
   * leave the task without it.
   */
  withCreation(call: CallContext, request: SendMessageRequest, execution: TaskExecution): void {
    const inline = request.configuration?.taskPushNotificationConfig;
    if (inline === undefined || execution.task !== undefined) return;
    const record = this.#require().recordOf(inline, execution.taskId, call.protocolVersion);
    execution.run.pushConfigWithCreation(record);
    this.#withCreation.set(execution, record.id);
  }

  /**
   * Once the message's task exists: starts delivering the config stored with its creation, or
   * stores the inline config of a message that continued the task (this turn's events on,
   * after `fromSeq`). `undefined` for a message without an inline config: nothing to wait for.
   */
  attachInline(
    call: CallContext,
    request: SendMessageRequest,
    execution: TaskExecution,
    fromSeq: number,
  ): Promise<void> | undefined {
    const inline = request.configuration?.taskPushNotificationConfig;
    return inline === undefined ? undefined : this.#attachInline(call, inline, execution, fromSeq);
  }

  async #attachInline(
    call: CallContext,
    inline: TaskPushNotificationConfig,
    execution: TaskExecution,
    fromSeq: number,
  ): Promise<void> {
    const taskId = execution.taskId;
    const created = this.#withCreation.get(execution);
    if (created !== undefined) {
      await this.#require().deliver(taskId, created);
      return;
    }
    await this.#require().create(
      this.#scopes.of(call),
      { ...inline, taskId },
      { field: INLINE_PUSH_FIELD, fromSeq, protocolVersion: call.protocolVersion },
    );
  }

  async create(
    call: CallContext,
    request: TaskPushNotificationConfig,
  ): Promise<TaskPushNotificationConfig> {
    return await this.#require().create(this.#scopes.of(call), request, {
      protocolVersion: call.protocolVersion,
    });
  }

  async get(
    call: CallContext,
    request: GetTaskPushNotificationConfigRequest,
  ): Promise<TaskPushNotificationConfig> {
    return await this.#require().get(this.#scopes.of(call), request);
  }

  async list(
    call: CallContext,
    request: ListTaskPushNotificationConfigsRequest,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return await this.#require().list(this.#scopes.of(call), request);
  }

  async delete(call: CallContext, request: DeleteTaskPushNotificationConfigRequest): Promise<void> {
    await this.#require().delete(this.#scopes.of(call), request);
  }

  async deliveryStatus(
    call: CallContext,
    request: PushDeliveryStatusRequest,
  ): Promise<PushDeliveryStatus> {
    return await this.#require().deliveryStatus(this.#scopes.of(call), request.taskId, request.id);
  }
}
