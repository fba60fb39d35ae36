/**
 * The seam between the client and a protocol binding. A transport implements one binding
 * (JSON-RPC, HTTP+JSON, gRPC...) and lets the client stay independent of it: the client decides
 * what to call, with which service parameters, credentials, time limit and retries, and runs the
 * caller's interceptors around the call; the transport only turns an operation call into its wire
 * exchange and the exchange back into protocol values or typed errors.
 *
 * The binding halves live next to their servers (`bindings/<binding>/*-client-*.ts`); this folder
 * is the contract they implement, with what the HTTP-based ones share, and depends only on
 * `protocol`.
 */

import type { AgentInterface, StreamResponse } from '../../protocol/generated/types.js';
import type {
  OperationName,
  OperationRequest,
  OperationResponse,
} from '../../protocol/operations.js';
import type { HttpSend } from './http-send.js';

/** The operations that answer with a stream of events. */
export type StreamingOperationName = 'SendStreamingMessage' | 'SubscribeToTask';

/** The operations that answer once. */
export type UnaryOperationName = Exclude<OperationName, StreamingOperationName>;

/** The result of a unary operation; `DeleteTaskPushNotificationConfig` resolves to `undefined`. */
export type UnaryResult<N extends UnaryOperationName> = N extends 'DeleteTaskPushNotificationConfig'
  ? undefined
  : OperationResponse<N>;

/** What every call carries besides its operation and request message. */
export interface CallParameters {
  /**
   * Where the call goes: the interface URL (absolute), with the query of credentials placed there
   * (an API key in the query). HTTP-based transports send to it, keeping its query.
   */
  readonly url: string;
  /**
   * The service parameters (`A2A-Version`, `A2A-Extensions`), credentials and caller headers, as
   * they are sent: HTTP-based transports send them as headers, gRPC as metadata. Interceptors may
   * change them in place.
   */
  readonly headers: Headers;
  /** Aborts the call: the caller's signal, the time limit, or the end of a stream. */
  readonly signal: AbortSignal;
}

/** A call of a unary operation. */
export interface UnaryCall<
  N extends UnaryOperationName = UnaryOperationName,
> extends CallParameters {
  readonly stream: false;
  readonly operation: N;
  /** The request, as sent: the client has already set `tenant` and generated ids. */
  readonly message: OperationRequest<N>;
}

/** A call of a streaming operation. */
export interface StreamCall<
  N extends StreamingOperationName = StreamingOperationName,
> extends CallParameters {
  readonly stream: true;
  readonly operation: N;
  /** The request, as sent: the client has already set `tenant` and generated ids. */
  readonly message: OperationRequest<N>;
  /**
   * Resume after this event: set when the client resumes a dropped stream with `SubscribeToTask`
   * (or the caller passed `lastEventId`). SSE transports send it as `Last-Event-ID`, gRPC as
   * `last-event-id` metadata; a binding that cannot resume ignores it, and its events carry no
   * `id`.
   */
  readonly lastEventId?: string | undefined;
}

/** What a unary call answered. */
export interface UnaryCallResult<N extends UnaryOperationName = UnaryOperationName> {
  readonly stream: false;
  /** The operation's result, validated. */
  readonly message: UnaryResult<N>;
  /** The response headers (gRPC: the response metadata). */
  readonly headers: Headers;
}

/** One event of a stream, with the id that lets the client resume after it (SSE `id:`). */
export interface StreamItem {
  readonly id?: string | undefined;
  readonly payload: StreamResponse;
}

/** A stream that has started. */
export interface StreamCallResult {
  readonly stream: true;
  /**
   * The events, each validated. Iterating throws a typed error for an error event; stopping
   * early closes the connection.
   */
  readonly message: AsyncIterable<StreamItem>;
  /** The response headers (gRPC: the response metadata). */
  readonly headers: Headers;
}

/**
 * A protocol binding, client side. Contract:
 * - calls go to `call.url` with `call.headers` (plus the binding's own, such as `content-type`),
 *   and requests are sent as given;
 * - responses are validated (strictly, with `parseMessage`): an invalid one rejects with
 *   `ProtocolViolationError` listing every violation;
 * - an A2A error rejects with its typed class (`TaskNotFoundError`...), with its details;
 * - a failed connection or an interrupted response rejects with `ConnectionError`; a failure of
 *   the underlying protocol without an A2A error (an HTTP 502 from a proxy) with `HttpStatusError`
 *   (the client decides what to retry); an aborted call with the signal's reason;
 * - `stream` resolves once the response has started, so that an error answered before the stream
 *   is a rejection; its events then follow as {@link StreamCallResult} says.
 */
export interface ClientTransport {
  /** The binding name as written in `AgentInterface.protocolBinding`. */
  readonly protocolBinding: string;
  unary<N extends UnaryOperationName>(call: UnaryCall<N>): Promise<UnaryCallResult<N>>;
  stream<N extends StreamingOperationName>(call: StreamCall<N>): Promise<StreamCallResult>;
}

/**
 * TLS material of the client, PEM (text or bytes): the certificate and key it presents for mutual
 * TLS, and the CA it trusts for the agent's certificate instead of the system's. Transports that
 * open their own connections (gRPC) use it; HTTP-based ones connect through `fetch`.
 */
export interface ClientTls {
  /** The client certificate (chain), PEM; with {@link ClientTls.key}. */
  readonly cert?: string | Uint8Array | undefined;
  /** The private key of {@link ClientTls.cert}, PEM. */
  readonly key?: string | Uint8Array | undefined;
  /** The CA certificates to trust for the agent's certificate, PEM; default: the system's. */
  readonly ca?: string | Uint8Array | undefined;
}

/** What a transport is created with. */
export interface ClientTransportContext {
  /** The selected interface; its `url` is absolute (resolved against the card URL). */
  readonly agentInterface: AgentInterface;
  /**
   * Sends one HTTP request with the client's `fetch` (the `fetch` option, else the global one);
   * network failures reject with `ConnectionError`, an aborted request with the abort reason.
   * For HTTP-based transports; others ignore it.
   */
  readonly send: HttpSend;
  /**
   * The URL the agent card was read from: a gRPC interface URL is a bare `host:port`, and the
   * card's scheme tells whether to use TLS.
   */
  readonly cardUrl?: string | undefined;
  /** The longest line or event data to accept in a stream (`ClientOptions.maxEventLength`). */
  readonly maxEventLength: number;
  /** The largest body of a response that is not a stream (`ClientOptions.maxResponseBytes`). */
  readonly maxResponseBytes: number;
  /** The client's TLS material (`ClientOptions.tls`), for transports with connections of their own. */
  readonly tls?: ClientTls | undefined;
}

/**
 * Creates the transport of one interface. It may be async, so that a transport whose code (and
 * libraries) should load only when a card selects it can be registered as
 * `(context) => import('./x-client-transport.js').then((m) => m.createXClientTransport(context))`.
 */
export type ClientTransportFactory = (
  context: ClientTransportContext,
) => ClientTransport | Promise<ClientTransport>;
