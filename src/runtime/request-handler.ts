/**
 * The seam between protocol bindings and the task runtime: the eleven A2A operations over typed,
 * already-validated requests. A binding parses its wire format, builds a {@link CallContext} and
 * calls one method; it never touches tasks or stores itself, so every binding behaves the same
 * (spec 5.1).
 */

import type {
  AgentCapabilities,
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  SendMessageResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '../protocol/generated/types.js';
import type { CallContext } from './call-context.js';
import type { StreamEvent } from './stream-event.js';

/**
 * A stream of events for one client. Iterate it to receive events in log order; the iteration ends
 * after the event that moves the task to a terminal or interrupted state. Breaking out of the loop
 * (or calling `return()`) releases the subscription and affects no other stream.
 */
export type EventStream = AsyncIterable<StreamEvent>;

/**
 * Serves the A2A operations for one agent. Methods reject with an `A2AError` for protocol errors
 * (task not found, unsupported operation...). Streaming methods resolve only once the stream can
 * start, so that errors found first are answered as ordinary errors, not inside a stream.
 */
export interface A2ARequestHandler {
  /**
   * The card fields the runtime owns: everything except `supportedInterfaces`, which depend on
   * where the HTTP layer mounts the agent.
   */
  readonly card: Omit<AgentCard, 'supportedInterfaces'>;
  readonly capabilities: AgentCapabilities;

  sendMessage(call: CallContext, request: SendMessageRequest): Promise<SendMessageResponse>;
  sendStreamingMessage(call: CallContext, request: SendMessageRequest): Promise<EventStream>;
  getTask(call: CallContext, request: GetTaskRequest): Promise<Task>;
  listTasks(call: CallContext, request: ListTasksRequest): Promise<ListTasksResponse>;
  cancelTask(call: CallContext, request: CancelTaskRequest): Promise<Task>;
  subscribeToTask(call: CallContext, request: SubscribeToTaskRequest): Promise<EventStream>;
  createTaskPushNotificationConfig(
    call: CallContext,
    request: TaskPushNotificationConfig,
  ): Promise<TaskPushNotificationConfig>;
  getTaskPushNotificationConfig(
    call: CallContext,
    request: GetTaskPushNotificationConfigRequest,
  ): Promise<TaskPushNotificationConfig>;
  listTaskPushNotificationConfigs(
    call: CallContext,
    request: ListTaskPushNotificationConfigsRequest,
  ): Promise<ListTaskPushNotificationConfigsResponse>;
  deleteTaskPushNotificationConfig(
    call: CallContext,
    request: DeleteTaskPushNotificationConfigRequest,
  ): Promise<void>;
  getExtendedAgentCard(
    call: CallContext,
    request: GetExtendedAgentCardRequest,
  ): Promise<Omit<AgentCard, 'supportedInterfaces'>>;

  /**
   * Checks the requested extensions against the card (spec 3.3.4): throws
   * `ExtensionSupportRequiredError` when a required extension was not requested, and returns the
   * requested extensions the agent supports, for the binding to echo in `A2A-Extensions`.
   */
  negotiateExtensions(call: CallContext): readonly string[];

  /**
   * Stops accepting new work, waits up to `deadlineMs` for running executions and open streams to
   * finish, then cancels what is left. Resolves when everything has stopped.
   */
  shutdown(options?: { deadlineMs?: number }): Promise<void>;
}
