/**
 * What every driver shares: the named operations over the binding's `call` and `open`, and the
 * service-parameter headers of the HTTP-based bindings. A binding implements `call` and `open`
 * only, so that every binding answers the named operations the same way.
 */

import type {
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
  OperationRequest,
  OperationResponse,
  SendMessageRequest,
  SendMessageResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '../../../src/index.js';
import {
  BindingViolationError,
  TAG_HEADER,
  type A2ADriver,
  type BindingName,
  type CallOptions,
  type EventStream,
  type Reply,
  type StreamOptions,
  type StreamingOperation,
  type UnaryOperation,
} from './a2a-driver.js';
import { fetchOf, withQuery, type DriverConnection } from './connection.js';

export abstract class WireDriver implements A2ADriver {
  abstract readonly binding: BindingName;
  readonly #fetch: typeof fetch;

  constructor(
    readonly url: string,
    readonly connection: DriverConnection = {},
  ) {
    this.#fetch = fetchOf(connection);
  }

  /** `fetch` with the connection's credentials (headers, query) and TLS. */
  protected send(url: string, init: RequestInit): Promise<Response> {
    const headers = { ...(init.headers as Record<string, string>), ...this.connection.headers };
    return this.#fetch(withQuery(url, this.connection), { ...init, headers });
  }

  abstract call<N extends UnaryOperation>(
    operation: N,
    request: OperationRequest<N>,
    options?: CallOptions,
  ): Promise<Reply<OperationResponse<N>>>;

  abstract open<N extends StreamingOperation>(
    operation: N,
    request: OperationRequest<N>,
    options?: StreamOptions,
  ): Promise<EventStream>;

  async #value<N extends UnaryOperation>(
    operation: N,
    request: OperationRequest<N>,
    options: CallOptions | undefined,
  ): Promise<OperationResponse<N>> {
    const reply = await this.call(operation, request, options);
    if (reply.error !== undefined) throw reply.error;
    if (reply.result === undefined) {
      throw new BindingViolationError(`${operation} answered neither a result nor an error`);
    }
    return reply.result;
  }

  sendMessage(request: SendMessageRequest, options?: CallOptions): Promise<SendMessageResponse> {
    return this.#value('SendMessage', request, options);
  }

  async sendTask(request: SendMessageRequest, options?: CallOptions): Promise<Task> {
    const response = await this.sendMessage(request, options);
    if (response.task === undefined) {
      throw new Error(`SendMessage answered without a task: ${JSON.stringify(response)}`);
    }
    return response.task;
  }

  sendStreamingMessage(request: SendMessageRequest, options?: CallOptions): Promise<EventStream> {
    return this.open('SendStreamingMessage', request, options);
  }

  getTask(request: GetTaskRequest, options?: CallOptions): Promise<Task> {
    return this.#value('GetTask', request, options);
  }

  listTasks(request: ListTasksRequest = {}, options?: CallOptions): Promise<ListTasksResponse> {
    return this.#value('ListTasks', request, options);
  }

  cancelTask(request: CancelTaskRequest, options?: CallOptions): Promise<Task> {
    return this.#value('CancelTask', request, options);
  }

  subscribeToTask(request: SubscribeToTaskRequest, options?: StreamOptions): Promise<EventStream> {
    return this.open('SubscribeToTask', request, options);
  }

  createTaskPushNotificationConfig(
    request: TaskPushNotificationConfig,
    options?: CallOptions,
  ): Promise<TaskPushNotificationConfig> {
    return this.#value('CreateTaskPushNotificationConfig', request, options);
  }

  getTaskPushNotificationConfig(
    request: GetTaskPushNotificationConfigRequest,
    options?: CallOptions,
  ): Promise<TaskPushNotificationConfig> {
    return this.#value('GetTaskPushNotificationConfig', request, options);
  }

  listTaskPushNotificationConfigs(
    request: ListTaskPushNotificationConfigsRequest,
    options?: CallOptions,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.#value('ListTaskPushNotificationConfigs', request, options);
  }

  async deleteTaskPushNotificationConfig(
    request: DeleteTaskPushNotificationConfigRequest,
    options?: CallOptions,
  ): Promise<void> {
    await this.#value('DeleteTaskPushNotificationConfig', request, options);
  }

  getExtendedAgentCard(
    request: GetExtendedAgentCardRequest = {},
    options?: CallOptions,
  ): Promise<AgentCard> {
    return this.#value('GetExtendedAgentCard', request, options);
  }
}

/** The request headers of the service parameters (spec 3.2.6) on the HTTP-based bindings. */
export function serviceHeaders(options: StreamOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const version = options.version === undefined ? '1.0' : options.version;
  if (version !== null) headers['a2a-version'] = version;
  if (options.extensions !== undefined) headers['a2a-extensions'] = options.extensions.join(', ');
  if (options.tag !== undefined) headers[TAG_HEADER] = options.tag;
  if (options.lastEventId !== undefined) headers['last-event-id'] = String(options.lastEventId);
  return headers;
}

/** The extension URIs of an `A2A-Extensions` response header; empty when there is none. */
export function activatedExtensionsOf(response: Response): readonly string[] {
  const value = response.headers.get('a2a-extensions');
  if (value === null) return [];
  return value
    .split(',')
    .map((uri) => uri.trim())
    .filter((uri) => uri !== '');
}

/** Whether `response` opened an event stream. */
export function isEventStream(response: Response): boolean {
  return response.headers.get('content-type')?.split(';')[0]?.trim() === 'text/event-stream';
}

/** `JSON.parse`, failing with what was being read. */
export function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new BindingViolationError(`${what} is not JSON: ${text.slice(0, 200)}`);
  }
}
