/**
 * The public shape of Tandem's A2A client: what `createClient` returns and the options it takes.
 * The client works against any A2A 1.0 agent, not just Tandem's: it discovers the agent card,
 * picks an interface by the caller's preference, and speaks that interface's protocol binding
 * through a {@link ClientTransport}.
 *
 * The types of the options are defined by the modules that implement them (interceptors, retries,
 * credentials, transports) and re-exported here, so that the whole of `ClientOptions` reads in one
 * place while no module of the client imports this one back.
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
  Role,
  SendMessageConfiguration,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '../protocol/generated/types.js';
import type { Struct } from '../protocol/json.js';
import type { ClientTls, ClientTransportFactory } from '../bindings/client/client-transport.js';
import type { FetchFunction } from '../bindings/client/http-send.js';
import type { CardResolver } from './card-resolver.js';
import type { CardTrust } from './card-verification.js';
import type { ClientAuth } from './client-auth.js';
import type { Interceptor } from './interceptor.js';
import type { ProtocolBindingName } from './interface-selection.js';
import type { RetryOptions } from './retry-policy.js';

export type { ClientTls } from '../bindings/client/client-transport.js';
export type { ClientAuth } from './client-auth.js';
export type {
  AgentCardCall,
  AgentCardCallResult,
  CallHandler,
  CallResult,
  ClientCall,
  Interceptor,
} from './interceptor.js';
export type { ProtocolBindingName } from './interface-selection.js';
export type { RetryOptions } from './retry-policy.js';

/** Options of `createClient`. */
export interface ClientOptions {
  /** Bindings in order of preference. Default `['JSONRPC', 'HTTP+JSON', 'GRPC']`. */
  readonly bindings?: readonly ProtocolBindingName[] | undefined;
  /**
   * Use this card instead of fetching one (it is validated all the same); the URL given to
   * `createClient` is then the base of relative interface URLs.
   */
  readonly card?: AgentCard | undefined;
  /**
   * Require a card signed by a key you trust (spec 8.4): creation fails with `AgentCardError`
   * when no signature of the card verifies against `keys` or a JWKS at an allowed `jku`.
   */
  readonly verifyCard?: CardTrust | undefined;
  readonly auth?: ClientAuth | undefined;
  /** Headers added to every call, card fetches included. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /**
   * Code around every call, at the level of operations (see {@link Interceptor}): it applies
   * alike over every transport, and card fetches go through it as `GetAgentCard`.
   */
  readonly interceptors?: readonly Interceptor[] | undefined;
  /** Extension URIs to request (`A2A-Extensions`) on every call. */
  readonly extensions?: readonly string[] | undefined;
  /**
   * Default time limit of a call in ms, retries included; `0` for none. Streams limit the wait
   * for their first event (and for a resumed connection to start), not their length. Default 60 s.
   */
  readonly timeoutMs?: number | undefined;
  /** Retries of idempotent calls; `false` disables. */
  readonly retry?: RetryOptions | false | undefined;
  /**
   * Resume a stream that drops with `SubscribeToTask` and `Last-Event-ID`, so that the caller sees
   * each event once. Default true, with up to 5 attempts after each drop.
   */
  readonly resumeStreams?: boolean | { readonly maxAttempts?: number } | undefined;
  /**
   * The longest line, and the longest data of one stream event, accepted from the agent, in
   * characters. A stream that sends more fails with `ProtocolViolationError` instead of growing
   * the client's memory without end. Default `DEFAULT_MAX_EVENT_LENGTH` (32 Mi).
   */
  readonly maxEventLength?: number | undefined;
  /**
   * The largest body of a response that is not a stream — an answer, an error, the agent card —
   * read from the agent, in bytes. A longer one is not read to its end: the call fails with
   * `ProtocolViolationError` (`AgentCardError` for the card) and the connection is closed.
   * Default `DEFAULT_MAX_RESPONSE_BYTES` (32 MiB).
   */
  readonly maxResponseBytes?: number | undefined;
  /**
   * The `fetch` that HTTP-based transports and card fetches use; defaults to the global one. It is
   * the place to reach the raw HTTP exchange (a proxy agent, a client certificate, the body of a
   * response as received), below the interceptors.
   */
  readonly fetch?: FetchFunction | undefined;
  /**
   * TLS of the gRPC transport, which opens its own connections: a client certificate (`cert` with
   * `key`) for an agent that authenticates callers by certificate (mutual TLS), and a CA to trust
   * for the agent's certificate (a private CA). Given, the gRPC transport uses TLS for a bare
   * `host:port` interface URL even when the card came over plain HTTP (a `grpc://` URL stays
   * plaintext). HTTP-based transports and card fetches connect through {@link ClientOptions.fetch}:
   * for mutual TLS over them, pass a `fetch` with a TLS agent (undici's `Agent({ connect })` in
   * Node), as the `tandem` command does for `--cert`, `--key` and `--ca`.
   */
  readonly tls?: ClientTls | undefined;
  /** Where cards are fetched and cached. Default: a resolver shared by all clients. */
  readonly cardResolver?: CardResolver | undefined;
  /**
   * Transports by binding name, added to (or replacing) the built-in `JSONRPC` and `HTTP+JSON`
   * ones, e.g. for a custom binding URI (spec 5.8). List the binding in `bindings` too. A factory
   * may be async, e.g. to import the transport's module only when a card selects it.
   */
  readonly transports?: Readonly<Record<string, ClientTransportFactory>> | undefined;
}

/**
 * A message as callers write it: `messageId` is generated when absent (a fresh UUID), and `role`
 * defaults to `ROLE_USER`.
 */
export type MessageInput = Omit<Message, 'messageId' | 'role'> & {
  messageId?: string;
  role?: Role;
};

/** A `SendMessageRequest` whose message is a {@link MessageInput}. */
export type SendMessageInput = Omit<SendMessageRequest, 'message'> & { message: MessageInput };

/** Per-call options. */
export interface CallOptions {
  readonly signal?: AbortSignal | undefined;
  /** Overrides {@link ClientOptions.timeoutMs} for this call. */
  readonly timeoutMs?: number | undefined;
  /** Headers added to this call. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
}

/** What `send` takes besides the content. */
export interface SendOptions extends CallOptions {
  readonly contextId?: string | undefined;
  readonly taskId?: string | undefined;
  readonly configuration?: SendMessageConfiguration | undefined;
  readonly metadata?: Struct | undefined;
  readonly referenceTaskIds?: string[] | undefined;
}

/**
 * A multi-turn conversation: keeps the `contextId` the agent assigned and continues a task that
 * asked for input (or authentication) with the next message.
 */
export interface Conversation {
  /** The context, once the agent has assigned one. */
  readonly contextId: string | undefined;
  /** The task waiting for the next message, if the last answer was interrupted. */
  readonly pendingTask: Task | undefined;
  /** Sends the next message and waits for the final or interrupted task (or a message). */
  send(content: string | Part[], options?: CallOptions): Promise<Task | Message>;
  /** Like `send`, streaming the events. */
  stream(content: string | Part[], options?: CallOptions): AsyncIterable<StreamResponse>;
}

/**
 * A client of one agent interface. Every A2A operation under its spec name in camelCase;
 * streams are async iterables, and breaking out of the loop closes the connection.
 */
export interface A2AClient {
  /**
   * The agent card the client was created from; replaced by the extended card once
   * `getExtendedAgentCard` returned it (spec 3.1.11, card replacement).
   */
  readonly card: AgentCard;
  /**
   * What of A2A 1.0 the card as read does not hold, though its version allowed it (an A2A 0.3
   * card without skills, say), one sentence each naming the field; empty for most cards.
   */
  readonly cardWarnings: readonly string[];
  /** The interface chosen from `card.supportedInterfaces`. */
  readonly selectedInterface: AgentInterface;

  sendMessage(request: SendMessageInput, options?: CallOptions): Promise<SendMessageResponse>;
  sendStreamingMessage(
    request: SendMessageInput,
    options?: CallOptions,
  ): AsyncIterable<StreamResponse>;
  getTask(request: GetTaskRequest, options?: CallOptions): Promise<Task>;
  listTasks(request?: ListTasksRequest, options?: CallOptions): Promise<ListTasksResponse>;
  cancelTask(request: CancelTaskRequest, options?: CallOptions): Promise<Task>;
  subscribeToTask(
    request: SubscribeToTaskRequest,
    options?: CallOptions & { lastEventId?: string },
  ): AsyncIterable<StreamResponse>;
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
  getExtendedAgentCard(options?: CallOptions): Promise<AgentCard>;

  /**
   * Sends text or parts (a fresh `messageId` is generated) and waits for the answer: the final
   * or interrupted task, or the agent's direct message.
   */
  send(content: string | Part[], options?: SendOptions): Promise<Task | Message>;
  /** Starts a conversation that keeps its context across messages. */
  conversation(options?: { contextId?: string }): Conversation;
}
