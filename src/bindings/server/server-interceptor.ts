/**
 * Server interceptors: code around every operation the server serves, at the level of the
 * operation table, so that it applies alike to every binding — JSON-RPC, HTTP+JSON, gRPC, and the
 * 0.3 doors, whose calls are translated into the same table — unary and streaming operations
 * alike. The call limits are one; tracing and metrics are others. It is the server's half of the
 * client's `Interceptor`, with the same shape: `(next) => (operation, call, request) => …`.
 *
 * An interceptor runs after the binding has decoded, validated and opened the call (version,
 * request message, tenant, extensions), so it sees what the agent will see; a call refused before
 * (a malformed request, an unauthenticated caller) never reaches it. It may answer without calling
 * `next`, throw (an A2A error is answered as it is; anything else as `InternalError`), or wrap the
 * result — for a streaming operation, an event stream whose events, end, error and cancellation
 * it can observe with `observeEvents`.
 *
 * Whatever async context is active when an interceptor calls `next` (an `AsyncLocalStorage`
 * store, an OpenTelemetry context) is the context the operation runs in, and the agent's
 * execution with it, also where the execution outlives the request (`returnImmediately`, a
 * stream the client left, push notifications): the runtime starts every execution from the call
 * that admitted its message, never from a context captured elsewhere.
 */

import type { AgentCard, AgentInterface } from '../../protocol/generated/types.js';
import type {
  OperationName,
  OperationRequest,
  OperationResponse,
} from '../../protocol/operations.js';
import type { CallContext } from '../../runtime/call-context.js';
import type { EventStream } from '../../runtime/request-handler.js';
import type { HeaderReader } from './http-exchange.js';

/** The operations that answer with a stream of events. */
export type StreamingOperation = 'SendStreamingMessage' | 'SubscribeToTask';

/** The operations that answer once. */
export type UnaryOperation = Exclude<OperationName, StreamingOperation>;

/**
 * What an operation answers through the chain: the proto's response message of a unary
 * operation (`{}` for `DeleteTaskPushNotificationConfig`, whose response is
 * `google.protobuf.Empty`), the runtime's event stream of a streaming one.
 */
export type OperationResult<N extends OperationName> = N extends StreamingOperation
  ? EventStream
  : OperationResponse<N>;

/**
 * The `protocolBinding` a call came through: one of the spec's three, or the URI of a binding of
 * one's own (spec 5.8).
 */
export type ServerBindingName = 'JSONRPC' | 'HTTP+JSON' | 'GRPC' | (string & {});

/** The agent a call is addressed to, as the server mounts it. */
export interface ServedAgent {
  /** Its mount path on the HTTP server: `''` for the root, else `/agents/dice`. */
  readonly path: string;
  /** Its card as the runtime completes it (`supportedInterfaces` depend on the listener). */
  readonly card: Omit<AgentCard, 'supportedInterfaces'>;
}

/**
 * One call as interceptors see it: the {@link CallContext} the agent's handler receives
 * (principal, tenant, protocol version, requested extensions, resume position, the client's
 * abort signal), and what the server knows of where the call came from.
 */
export interface ServerCall extends CallContext {
  /** The binding the call came through. */
  readonly binding: ServerBindingName;
  /**
   * The older protocol version the call was translated from, when it came through a compat door
   * (`'0.3'`); `undefined` for a call made in 1.0. `protocolVersion` is then that version too.
   */
  readonly compatVersion: string | undefined;
  /** The agent the call is addressed to. */
  readonly agent: ServedAgent;
  /**
   * The call's service parameters and transport headers, by lower-case name: the HTTP request
   * headers, or the gRPC metadata (text keys; `-bin` keys read as absent). A tracing interceptor
   * reads `traceparent`, `tracestate`, `baggage` or a request id here.
   */
  readonly serviceParameters: HeaderReader;
  /** The requested extensions the agent supports, echoed to the client in `A2A-Extensions`. */
  readonly activatedExtensions: readonly string[];
  /**
   * The agent's interfaces as this caller reaches them (the `supportedInterfaces` of its
   * extended card): made when asked for, from the URL or authority the call came to.
   */
  agentInterfaces(): AgentInterface[];
}

/**
 * Runs an operation: the next interceptor, or at the end of the chain the operation table, which
 * calls the agent's request handler. Resolves once a unary operation has answered, or once a
 * stream can start (errors found first are ordinary rejections, not stream errors).
 */
export type ServerCallHandler = <N extends OperationName>(
  operation: N,
  call: ServerCall,
  request: OperationRequest<N>,
) => Promise<OperationResult<N>>;

/**
 * Wraps the next handler. Interceptors run in the order given, outermost first, around every
 * operation of every agent of the server. Pass `call` on as it came (it is not a plain object:
 * a spread copy loses its lazily made members, such as `signal`).
 *
 * @example A timing log (see docs/architecture.md for the whole example):
 * ```ts
 * const timing: ServerInterceptor = (next) => async (operation, call, request) => {
 *   const start = performance.now();
 *   const log = (outcome: string) =>
 *     logger.info({ operation, binding: call.binding, outcome, ms: performance.now() - start });
 *   try {
 *     const result = await next(operation, call, request);
 *     if (!isEventStream(result)) log('ok');
 *     else return observeEvents(result, { onEnd: (end) => log(end.kind) });
 *     return result;
 *   } catch (error) {
 *     log('error');
 *     throw error;
 *   }
 * };
 * ```
 */
export type ServerInterceptor = (next: ServerCallHandler) => ServerCallHandler;

/** Builds the chain: `interceptors[0]` sees each call first and its result last. */
export function applyServerInterceptors(
  interceptors: readonly ServerInterceptor[],
  handler: ServerCallHandler,
): ServerCallHandler {
  let chain = handler;
  for (let i = interceptors.length - 1; i >= 0; i--) {
    const interceptor = interceptors[i];
    if (interceptor !== undefined) chain = interceptor(chain);
  }
  return chain;
}
