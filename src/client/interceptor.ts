/**
 * Interceptors: the caller's code around every call of a client, at the level of operations, so
 * that they apply alike over every transport (JSON-RPC, HTTP+JSON, gRPC...). An interceptor sees
 * the operation, its request message, the interface URL, the service parameters and credentials
 * (mutable headers) and the signal, and returns the result of the call or of its stream. Card
 * discovery goes through the same interceptors as the call `GetAgentCard`. Reaching the raw HTTP
 * exchange is the `fetch` option's job, not an interceptor's.
 */

import type { AgentCard } from '../protocol/generated/types.js';
import { UsageError } from '../protocol/local-errors.js';
import type {
  CallParameters,
  StreamCall,
  StreamCallResult,
  StreamingOperationName,
  UnaryCall,
  UnaryCallResult,
  UnaryOperationName,
} from '../bindings/client/client-transport.js';

/** The fetch of the agent card (spec 8.2), an HTTP `GET` of the card URL (`url`). */
export interface AgentCardCall extends CallParameters {
  readonly stream: false;
  readonly operation: 'GetAgentCard';
  /** The card fetch has no request message. */
  readonly message: Readonly<Record<string, never>>;
}

/** What a card fetch answered: the card, validated (the cached one after `304 Not Modified`). */
export interface AgentCardCallResult {
  readonly stream: false;
  readonly message: AgentCard;
  readonly headers: Headers;
}

/**
 * A call as interceptors see it: `stream` tells unary calls from streaming ones, and `operation`
 * narrows `message` to the operation's request type.
 */
export type ClientCall =
  | { [N in UnaryOperationName]: UnaryCall<N> }[UnaryOperationName]
  | { [N in StreamingOperationName]: StreamCall<N> }[StreamingOperationName]
  | AgentCardCall;

/** What a call answered: `stream` is the call's. */
export type CallResult =
  | { [N in UnaryOperationName]: UnaryCallResult<N> }[UnaryOperationName]
  | StreamCallResult
  | AgentCardCallResult;

/** Runs a call: the next interceptor, or at the end of the chain the transport (or card fetch). */
export type CallHandler = (call: ClientCall) => Promise<CallResult>;

/**
 * Wraps the next handler, e.g. `(next) => (call) => { call.headers.set('x-trace', id); return
 * next(call); }`. Interceptors run in the order given, outermost first, around every call of the
 * client, card fetches and each retry included. An interceptor may pass `next` a changed copy of
 * the call (`{ ...call, url }`), answer without calling `next`, or wrap a stream's events
 * (`result.stream` is `true`); it must answer a call with a result of the same kind.
 */
export type Interceptor = (next: CallHandler) => CallHandler;

/** Builds the chain: `interceptors[0]` sees each call first and its result last. */
export function applyInterceptors(
  interceptors: readonly Interceptor[],
  handler: CallHandler,
): CallHandler {
  let chain = handler;
  for (let i = interceptors.length - 1; i >= 0; i--) {
    const interceptor = interceptors[i];
    if (interceptor !== undefined) chain = interceptor(chain);
  }
  return chain;
}

/** The rejection of a call that reached a handler that does not run its kind. */
export function misroutedCall(call: ClientCall, handler: string): Promise<never> {
  return Promise.reject(
    new UsageError(
      `An interceptor passed a ${call.operation} call to ${handler}; pass each call on as it came ` +
        '(with its operation unchanged)',
    ),
  );
}
