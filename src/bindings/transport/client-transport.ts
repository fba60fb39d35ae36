/**
 * The seam between the client and a protocol binding. A transport implements one binding
 * (JSON-RPC, HTTP+JSON...) and lets the client stay independent of it: the client decides what to
 * call, with which headers, time limit and retries; the transport only turns an operation into an
 * HTTP exchange and the exchange back into protocol values or typed errors.
 *
 * The binding halves live next to their servers (`bindings/<binding>/*-client-*.ts`); this module
 * and `client-errors.ts` are the contract they implement and depend only on `protocol`.
 */

import type { AgentInterface, StreamResponse } from '../../protocol/generated/types.js';
import type {
  OperationName,
  OperationRequest,
  OperationResponse,
} from '../../protocol/operations.js';

/** The HTTP exchange an interceptor sees: a web `Request` and the A2A operation it carries. */
export interface ClientCall {
  /** The A2A operation, or `'GetAgentCard'` for card discovery. */
  readonly operation: OperationName | 'GetAgentCard';
  readonly request: Request;
}

/** Sends a call and returns the HTTP response. */
export type CallHandler = (call: ClientCall) => Promise<Response>;

/** The operations that answer with a stream of events. */
export type StreamingOperationName = 'SendStreamingMessage' | 'SubscribeToTask';

/** The operations that answer once. */
export type UnaryOperationName = Exclude<OperationName, StreamingOperationName>;

/** The result of a unary operation; `DeleteTaskPushNotificationConfig` resolves to `undefined`. */
export type UnaryResult<N extends UnaryOperationName> = N extends 'DeleteTaskPushNotificationConfig'
  ? undefined
  : OperationResponse<N>;

/** What every transport call gets besides its request message. */
export interface TransportCallOptions {
  /** Service parameters, credentials and caller headers, ready to send as they are. */
  readonly headers: Headers;
  /** Aborts the HTTP exchange: the caller's signal, the time limit, or the end of a stream. */
  readonly signal: AbortSignal;
  /** For `SubscribeToTask`: resume after this event (`Last-Event-ID`). */
  readonly lastEventId?: string | undefined;
}

/** One event of a stream, with the SSE `id:` that lets the client resume after it. */
export interface StreamItem {
  readonly id?: string | undefined;
  readonly payload: StreamResponse;
}

/**
 * A protocol binding, client side. Contract:
 * - requests are sent as given: the client has already set `tenant` and generated ids;
 * - responses are validated (strictly, with `parseMessage`): an invalid one rejects with
 *   `ProtocolViolationError` listing every violation;
 * - an A2A error rejects with its typed class (`TaskNotFoundError`...), with its details;
 * - a failed connection or an interrupted body rejects with `ConnectionError`; an HTTP failure
 *   without an A2A error with `HttpStatusError` (the client decides what to retry);
 * - `stream` resolves once the response has started, so that an error answered before the stream
 *   is a rejection; the iterable then yields each event, throws a typed error for an error event,
 *   and closes the connection when the consumer stops early.
 */
export interface ClientTransport {
  /** The binding name as written in `AgentInterface.protocolBinding`. */
  readonly protocolBinding: string;
  call<N extends UnaryOperationName>(
    operation: N,
    request: OperationRequest<N>,
    options: TransportCallOptions,
  ): Promise<UnaryResult<N>>;
  stream<N extends StreamingOperationName>(
    operation: N,
    request: OperationRequest<N>,
    options: TransportCallOptions,
  ): Promise<AsyncIterable<StreamItem>>;
}

/** What a transport is created with. */
export interface ClientTransportContext {
  /** The selected interface; its `url` is absolute (resolved against the card URL). */
  readonly agentInterface: AgentInterface;
  /**
   * Sends one HTTP request through the client's pipeline (interceptors, credentials in the query,
   * `fetch`). Network failures reject with `ConnectionError`.
   */
  readonly send: CallHandler;
  /** The longest line or event data to accept in a stream (`ClientOptions.maxEventLength`). */
  readonly maxEventLength?: number;
  /** The largest body of a response that is not a stream (`ClientOptions.maxResponseBytes`). */
  readonly maxResponseBytes?: number;
}

/** Creates the transport of one interface. */
export type ClientTransportFactory = (context: ClientTransportContext) => ClientTransport;
