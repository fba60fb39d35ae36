/**
 * The seam between the behaviour suite and the protocol bindings: an `A2ADriver` speaks one
 * binding's raw wire to a server — `fetch` on loopback and its own reading of event streams —
 * and hands the tests what the operation means in A2A terms: the result, the typed A2A error
 * (decoded with the protocol's own decoders), the activated extensions, the events with their
 * sequence numbers. A test written against it runs unchanged over every binding.
 *
 * It is deliberately not Tandem's client: the client is tested on its own, and a server bug the
 * client mirrors must still fail here. A driver is strict about its binding — an answer that
 * breaks the binding's framing is a {@link BindingViolationError}, never smoothed over.
 */

import type {
  A2AError,
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
  OperationName,
  OperationRequest,
  OperationResponse,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '../../../src/index.js';

/** The protocol bindings a driver exists for. */
export type BindingName = 'jsonrpc' | 'rest' | 'grpc';

/** The operations answered with a stream of events. */
export type StreamingOperation = 'SendStreamingMessage' | 'SubscribeToTask';

/** The operations answered with one response. */
export type UnaryOperation = Exclude<OperationName, StreamingOperation>;

/** The request header a test sets to find its request on the server side. */
export const TAG_HEADER = 'x-e2e-tag';

/** The service parameters (spec 3.2.6) and transport options of one call. */
export interface CallOptions {
  /** `A2A-Version` to send: `"1.0"` unless given; `null` sends none, `""` an empty one. */
  readonly version?: string | null;
  /** `A2A-Extensions` to request; none when absent. */
  readonly extensions?: readonly string[];
  /** Marks the request so that the test can find it on the server (see {@link TAG_HEADER}). */
  readonly tag?: string;
  /** Aborts the call, as a client that goes away. */
  readonly signal?: AbortSignal;
}

/** The options of a streaming call. */
export interface StreamOptions extends CallOptions {
  /**
   * `SubscribeToTask` only: resume after this event (`Last-Event-ID` on the SSE bindings). A
   * string is sent as it is, so that a test can send what is not an event id.
   */
  readonly lastEventId?: number | string;
}

/** The outcome of a unary call as it came: a result or a typed error. */
export interface Reply<T> {
  readonly result: T | undefined;
  readonly error: A2AError | undefined;
  /** The extensions the server activated (the `A2A-Extensions` it answered); empty when none. */
  readonly activatedExtensions: readonly string[];
  /** The response body as received, for checks that nothing leaks. */
  readonly raw: string;
}

/** One event of a stream. */
export interface StreamEvent {
  /**
   * The event's sequence number in the task's event log, as the binding carries it (the SSE
   * `id:`); `undefined` for an event outside the log (a direct Message).
   */
  readonly seq: number | undefined;
  readonly response: StreamResponse;
  /**
   * The `StreamResponse` JSON exactly as the server sent it, so that live and replayed events
   * compare byte for byte; `undefined` when the binding's framing does not let it be cut out
   * without re-serialising.
   */
  readonly json: string | undefined;
  /** The event as it arrived (the SSE `data:`), for checks that nothing leaks. */
  readonly raw: string;
  /** When it was read, on `preciseNow()`'s clock. */
  readonly receivedAt: number;
}

/** An open stream of events. */
export interface EventStream {
  /** The extensions the server activated for this stream. */
  readonly activatedExtensions: readonly string[];
  /**
   * The next event, or `undefined` once the server has ended the stream (or {@link close} was
   * called). Rejects with the typed A2A error when the server ends the stream with one.
   */
  next(): Promise<StreamEvent | undefined>;
  /** The next `n` events; fails if the stream ends first. */
  take(n: number): Promise<StreamEvent[]>;
  /** Every event until the server ends the stream. */
  rest(): Promise<StreamEvent[]>;
  /** Drops the connection, as a client that goes away. */
  close(): void;
}

/**
 * Every A2A operation over one binding of one agent. `call` and `open` are the binding; the
 * named operations are `call`/`open` that reject with the typed A2A error the server answered.
 */
export interface A2ADriver {
  readonly binding: BindingName;
  /** The interface URL (from the agent card). */
  readonly url: string;

  /** Any unary operation, with its outcome as it came. */
  call<N extends UnaryOperation>(
    operation: N,
    request: OperationRequest<N>,
    options?: CallOptions,
  ): Promise<Reply<OperationResponse<N>>>;
  /** Opens a streaming operation; rejects with the typed error a server answers instead. */
  open<N extends StreamingOperation>(
    operation: N,
    request: OperationRequest<N>,
    options?: StreamOptions,
  ): Promise<EventStream>;

  sendMessage(request: SendMessageRequest, options?: CallOptions): Promise<SendMessageResponse>;
  /** `SendMessage` that must answer with a task. */
  sendTask(request: SendMessageRequest, options?: CallOptions): Promise<Task>;
  sendStreamingMessage(request: SendMessageRequest, options?: CallOptions): Promise<EventStream>;
  getTask(request: GetTaskRequest, options?: CallOptions): Promise<Task>;
  listTasks(request?: ListTasksRequest, options?: CallOptions): Promise<ListTasksResponse>;
  cancelTask(request: CancelTaskRequest, options?: CallOptions): Promise<Task>;
  subscribeToTask(request: SubscribeToTaskRequest, options?: StreamOptions): Promise<EventStream>;
  createTaskPushNotificationConfig(
    request: TaskPushNotificationConfig,
    options?: CallOptions,
  ): Promise<TaskPushNotificationConfig>;
  getTaskPushNotificationConfig(
    request: GetTaskPushNotificationConfigRequest,
    options?: CallOptions,
  ): Promise<TaskPushNotificationConfig>;
  listTaskPushNotificationConfigs(
    request: ListTaskPushNotificationConfigsRequest,
    options?: CallOptions,
  ): Promise<ListTaskPushNotificationConfigsResponse>;
  deleteTaskPushNotificationConfig(
    request: DeleteTaskPushNotificationConfigRequest,
    options?: CallOptions,
  ): Promise<void>;
  getExtendedAgentCard(
    request?: GetExtendedAgentCardRequest,
    options?: CallOptions,
  ): Promise<AgentCard>;
}

/** The server's answer breaks the framing of its binding (not an A2A error it chose to send). */
export class BindingViolationError extends Error {
  override readonly name = 'BindingViolationError';
}
