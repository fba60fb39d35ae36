/**
 * The {@link A2AClient} of one agent interface: each operation of the spec under its name, plus
 * `send` and `conversation` on top. Operations delegate to the {@link ClientCore}, which adds
 * what every call shares; this class only maps names and shapes.
 */

import type {
  AgentCard,
  AgentInterface,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  Part,
  SendMessageResponse,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '../protocol/generated/types.js';
import type {
  A2AClient,
  CallOptions,
  Conversation,
  SendMessageInput,
  SendOptions,
} from './a2a-client.js';
import type { ClientCore } from './client-core.js';
import { ClientConversation } from './conversation.js';
import { sendRequestOf, toSendMessageRequest } from './to-message.js';
import { StreamOutcome } from './stream-outcome.js';
import { endsStream } from './stream-resume.js';

export class RemoteAgentClient implements A2AClient {
  readonly selectedInterface: AgentInterface;
  readonly cardWarnings: readonly string[];
  readonly #core: ClientCore;
  #card: AgentCard;

  constructor(
    card: { readonly card: AgentCard; readonly warnings: readonly string[] },
    selectedInterface: AgentInterface,
    core: ClientCore,
  ) {
    this.#card = card.card;
    this.cardWarnings = card.warnings;
    this.selectedInterface = selectedInterface;
    this.#core = core;
  }

  get card(): AgentCard {
    return this.#card;
  }

  sendMessage(request: SendMessageInput, options?: CallOptions): Promise<SendMessageResponse> {
    return this.#core.unary('SendMessage', toSendMessageRequest(request), options);
  }

  sendStreamingMessage(
    request: SendMessageInput,
    options?: CallOptions,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    return this.#core.stream('SendStreamingMessage', toSendMessageRequest(request), options);
  }

  getTask(request: GetTaskRequest, options?: CallOptions): Promise<Task> {
    return this.#core.unary('GetTask', request, options);
  }

  listTasks(request: ListTasksRequest = {}, options?: CallOptions): Promise<ListTasksResponse> {
    return this.#core.unary('ListTasks', request, options);
  }

  cancelTask(request: CancelTaskRequest, options?: CallOptions): Promise<Task> {
    return this.#core.unary('CancelTask', request, options);
  }

  subscribeToTask(
    request: SubscribeToTaskRequest,
    options?: CallOptions & { lastEventId?: string },
  ): AsyncGenerator<StreamResponse, void, undefined> {
    return this.#core.stream('SubscribeToTask', request, options);
  }

  createTaskPushNotificationConfig(
    request: TaskPushNotificationConfig,
    options?: CallOptions,
  ): Promise<TaskPushNotificationConfig> {
    return this.#core.unary('CreateTaskPushNotificationConfig', request, options);
  }

  getTaskPushNotificationConfig(
    request: GetTaskPushNotificationConfigRequest,
    options?: CallOptions,
  ): Promise<TaskPushNotificationConfig> {
    return this.#core.unary('GetTaskPushNotificationConfig', request, options);
  }

  listTaskPushNotificationConfigs(
    request: ListTaskPushNotificationConfigsRequest,
    options?: CallOptions,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.#core.unary('ListTaskPushNotificationConfigs', request, options);
  }

  async deleteTaskPushNotificationConfig(
    request: DeleteTaskPushNotificationConfigRequest,
    options?: CallOptions,
  ): Promise<void> {
    await this.#core.unary('DeleteTaskPushNotificationConfig', request, options);
  }

  /** Also replaces {@link card} with the extended card (spec 3.1.11). */
  async getExtendedAgentCard(options?: CallOptions): Promise<AgentCard> {
    const card = await this.#core.unary('GetExtendedAgentCard', {}, options);
    this.#card = card;
    return card;
  }

  /**
   * Sends and waits for the answer, as a blocking `SendMessage` would (spec 3.2.2): until the task
   * is terminal or interrupted. An agent that streams is called with `SendStreamingMessage`, so
   * that a dropped connection is resumed instead of lost (and a long task is not cut by the time
   * limit); the answer is folded from the events, and the stream is closed once the task is
   * terminal or interrupted (an agent may keep an `AUTH_REQUIRED` stream open, spec 7.6.1).
   */
  async send(content: string | Part[], options: SendOptions = {}): Promise<Task | Message> {
    const request = sendRequestOf(content, options);
    if (this.#card.capabilities.streaming !== true) {
      const response = await this.#core.unary('SendMessage', request, options);
      return response.task ?? response.message;
    }
    const outcome = new StreamOutcome();
    for await (const event of this.#core.stream('SendStreamingMessage', request, options)) {
      outcome.apply(event);
      if (endsStream(event)) break;
    }
    return outcome.result();
  }

  conversation(options: { contextId?: string } = {}): Conversation {
    return new ClientConversation(this, options.contextId);
  }
}
