/**
 * The server half of the JSON-RPC binding (spec 9): one JSON-RPC 2.0 request in, one reply out —
 * a JSON body, nothing (a notification), or a stream of SSE frames. It knows nothing about HTTP
 * servers: the transport hands it the body, a header reader and the query string, and writes what
 * it returns. That keeps the binding testable without sockets and shared by every HTTP adapter.
 *
 * Order of checks, each answered with the request id once it is known:
 * 1. JSON (-32700), then the request object (-32600). Batches are refused with one -32600 and id
 *    `null`: A2A defines no batch semantics (a streaming method cannot be batched) and no A2A
 *    client sends them.
 * 2. The method (-32601; case-sensitive, one of the eleven operations).
 * 3. `A2A-Version` (-32009), so that a client of another version learns it first.
 * 4. The params (-32602 with a `google.rpc.BadRequest` detail listing every violated field).
 * 5. `A2A-Extensions` negotiation (-32008), then the handler (A2A errors, or -32603 for anything
 *    unexpected, which is logged and never described to the client).
 */

import {
  InternalError,
  InvalidRequestError,
  JsonParseError,
  MethodNotFoundError,
  isA2AError,
  type A2AError,
} from '../../protocol/errors.js';
import type { AgentInterface } from '../../protocol/generated/types.js';
import { OPERATION_NAMES, isOperationName, type OperationName } from '../../protocol/operations.js';
import { ANONYMOUS, type CallContext } from '../../runtime/call-context.js';
import { silentLogger, type Logger } from '../../runtime/logger.js';
import type { A2ARequestHandler } from '../../runtime/request-handler.js';
import {
  invokeOperation,
  invokeStreamingOperation,
  parseParams,
  type Invocation,
} from './jsonrpc-dispatch.js';
import {
  NULL_ID_TOKEN,
  errorEnvelope,
  idTokenOf,
  resultEnvelope,
  type JsonRpcId,
} from './jsonrpc-envelope.js';
import { JsonRpcEventStream } from './jsonrpc-event-stream.js';
import {
  negotiateVersion,
  parseExtensionsHeader,
  readVersionParameter,
  type HeaderReader,
} from './service-parameters.js';
import { stringifyProtocolValue } from '../../protocol/json-text.js';
import { parseLastEventId } from '../server/last-event-id.js';

/** One JSON-RPC call as the transport received it. */
export interface JsonRpcRequestInput {
  /** The request body, UTF-8. */
  readonly body: string | Uint8Array;
  /** Request headers: `A2A-Version`, `A2A-Extensions`, `Last-Event-ID`. */
  readonly headers: HeaderReader;
  /** The raw query string without `?`, for an `A2A-Version` query parameter. */
  readonly query?: string | undefined;
  /**
   * Fires when the client disconnects. Read only when the call context is asked for it, so a
   * transport may create it lazily behind a getter.
   */
  readonly signal: AbortSignal;
  /** The interfaces to declare in `GetExtendedAgentCard` results. */
  readonly agentInterfaces?: (() => AgentInterface[]) | undefined;
}

interface JsonRpcReplyBase {
  /** The JSON-RPC method, when the request named a known one. */
  readonly method: OperationName | undefined;
  /** Extensions the handler activated, to echo in the `A2A-Extensions` response header. */
  readonly activatedExtensions: readonly string[];
  /** The validated params, for logging (task id); `undefined` before validation. */
  readonly params: unknown;
}

/** A JSON response body (a result or an error). HTTP status 200 either way. */
export interface JsonRpcBodyReply extends JsonRpcReplyBase {
  readonly kind: 'body';
  readonly body: string;
  /** The JSON-RPC error code, or `undefined` for a result. */
  readonly errorCode: number | undefined;
  /** The result value, for logging; `undefined` for an error. */
  readonly result: unknown;
}

/** A notification was handled: nothing to send (HTTP 204). */
export interface JsonRpcEmptyReply extends JsonRpcReplyBase {
  readonly kind: 'empty';
  readonly errorCode: number | undefined;
}

/** A stream of SSE frames (`text/event-stream`). */
export interface JsonRpcStreamReply extends JsonRpcReplyBase {
  readonly kind: 'stream';
  readonly stream: JsonRpcEventStream;
}

/** What the transport writes back. */
export type JsonRpcReply = JsonRpcBodyReply | JsonRpcEmptyReply | JsonRpcStreamReply;

/** Options of {@link createJsonRpcHandler}. */
export interface JsonRpcHandlerOptions {
  /** Where unexpected errors go (with their stack); silent by default. */
  readonly logger?: Logger | undefined;
}

/** Answers one JSON-RPC call; never rejects. */
export type JsonRpcHandler = (input: JsonRpcRequestInput) => Promise<JsonRpcReply>;

const NO_EXTENSIONS: readonly string[] = Object.freeze([]);
const decoder = new TextDecoder();

/**
 * The call context of a JSON-RPC request. A class rather than an object literal with a getter:
 * V8 gives every literal with its own accessor a new hidden class, which on a hot path costs
 * far more in garbage collection than the lazy signal saves.
 */
class JsonRpcCallContext implements CallContext {
  readonly principal = ANONYMOUS;
  readonly #input: JsonRpcRequestInput;

  constructor(
    input: JsonRpcRequestInput,
    readonly tenant: string,
    readonly requestedExtensions: readonly string[],
    readonly protocolVersion: string,
    readonly afterSeq: number | undefined,
  ) {
    this.#input = input;
  }

  /** Created by the transport on first access only. */
  get signal(): AbortSignal {
    return this.#input.signal;
  }
}

/** The framing fields of a request that passed the JSON-RPC 2.0 checks. */
interface Framed {
  readonly method: string;
  /** The request id as the JSON token to echo (`null` when absent or unreadable). */
  readonly idToken: string;
  /** No `id` member: execute, answer nothing. */
  readonly notification: boolean;
  readonly params: object;
}

/** Where an error reply goes. */
type ReplyTarget = Pick<Framed, 'idToken' | 'notification'>;

const UNKNOWN_TARGET: ReplyTarget = { idToken: NULL_ID_TOKEN, notification: false };

/** What an error reply reports to the log besides the error. */
interface ReplyContext {
  readonly method?: OperationName | undefined;
  readonly params?: unknown;
  readonly activatedExtensions?: readonly string[] | undefined;
}

function errorReply(
  target: ReplyTarget,
  error: A2AError,
  context: ReplyContext = {},
): JsonRpcReply {
  const method = context.method;
  const params = context.params;
  const activatedExtensions = context.activatedExtensions ?? NO_EXTENSIONS;
  const errorCode = error.code;
  if (target.notification) {
    return { kind: 'empty', method, params, activatedExtensions, errorCode };
  }
  const body = errorEnvelope(target.idToken, error);
  return { kind: 'body', body, result: undefined, method, params, activatedExtensions, errorCode };
}

/**
 * Creates the JSON-RPC server half for one agent's request handler. The returned function
 * decodes and checks the request, negotiates version and extensions, builds the
 * {@link CallContext} and dispatches to `handler`.
 */
export function createJsonRpcHandler(
  handler: A2ARequestHandler,
  options: JsonRpcHandlerOptions = {},
): JsonRpcHandler {
  const logger = options.logger ?? silentLogger;

  return async (input) => {
    const text = typeof input.body === 'string' ? input.body : decoder.decode(input.body);
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch (error) {
      const reason = error instanceof Error ? `: ${error.message}` : '';
      return errorReply(UNKNOWN_TARGET, new JsonParseError(`Invalid JSON payload${reason}`));
    }
    const framed = frame(text, message);
    if (!framed.ok) return errorReply(framed, framed.error);
    const { method, params: rawParams } = framed;
    if (!isOperationName(method)) return errorReply(framed, methodNotFound(method));

    let params: unknown;
    let activatedExtensions = NO_EXTENSIONS;
    try {
      const version = negotiateVersion(readVersionParameter(input.headers, input.query));
      const request = parseParams(method, rawParams);
      params = request;
      const tenant = (request as { tenant?: unknown }).tenant;
      const afterSeq =
        method === 'SubscribeToTask'
          ? parseLastEventId(input.headers.get('last-event-id'))
          : undefined;
      const call = new JsonRpcCallContext(
        input,
        typeof tenant === 'string' ? tenant : '',
        parseExtensionsHeader(input.headers.get('a2a-extensions')),
        version.text,
        afterSeq,
      );
      activatedExtensions = handler.negotiateExtensions(call);
      if (method === 'SendStreamingMessage' || method === 'SubscribeToTask') {
        // `request` was parsed for `method`, which the narrowing above does not carry over.
        const invocation = { method, call, request } as
          Invocation<'SendStreamingMessage'> | Invocation<'SubscribeToTask'>;
        const events = await invokeStreamingOperation(handler, invocation);
        const stream = new JsonRpcEventStream(events, framed.idToken, logger);
        if (!framed.notification) {
          return { kind: 'stream', stream, method, params, activatedExtensions };
        }
        // Nobody will read a notification's stream: release it; the task goes on.
        stream.stop();
        return { kind: 'empty', errorCode: undefined, method, params, activatedExtensions };
      }
      const result = await invokeOperation(handler, { method, call, request, environment: input });
      if (framed.notification) {
        return { kind: 'empty', errorCode: undefined, method, params, activatedExtensions };
      }
      const body = resultEnvelope(framed.idToken, stringifyProtocolValue(result));
      return {
        kind: 'body',
        body,
        errorCode: undefined,
        result,
        method,
        params,
        activatedExtensions,
      };
    } catch (error) {
      const context = { method, params, activatedExtensions };
      if (isA2AError(error)) return errorReply(framed, error, context);
      logger.error({ err: error, method }, 'unexpected error while handling a JSON-RPC request');
      return errorReply(framed, new InternalError(), context);
    }
  };
}

type FrameResult =
  | (Framed & { readonly ok: true })
  | (ReplyTarget & { readonly ok: false; readonly error: InvalidRequestError });

/** Checks the JSON-RPC 2.0 request object (everything but the method's existence). */
function frame(text: string, message: unknown): FrameResult {
  if (Array.isArray(message)) {
    return invalid(
      UNKNOWN_TARGET,
      'Batch requests are not supported by A2A; send each JSON-RPC request in its own HTTP request',
    );
  }
  if (typeof message !== 'object' || message === null) {
    return invalid(UNKNOWN_TARGET, 'A JSON-RPC request must be a JSON object');
  }
  const request = message as Record<string, unknown>;
  const hasId = Object.hasOwn(request, 'id');
  const id = request.id;
  if (hasId && id !== null && typeof id !== 'string' && typeof id !== 'number') {
    return invalid(UNKNOWN_TARGET, 'The request "id" must be a string, a number or null');
  }
  // An invalid request is answered even without an id: it is not a valid notification.
  const target = {
    idToken: hasId ? idTokenOf(text, id as JsonRpcId) : NULL_ID_TOKEN,
    notification: false,
  };
  if (request.jsonrpc !== '2.0') return invalid(target, 'The request must have "jsonrpc": "2.0"');
  const method = request.method;
  if (typeof method !== 'string') {
    return invalid(
      target,
      'The request must have a string "method" naming an A2A operation, e.g. "SendMessage"',
    );
  }
  const params = request.params;
  if (
    params !== undefined &&
    (typeof params !== 'object' || params === null || Array.isArray(params))
  ) {
    return invalid(
      target,
      'The request "params" must be a JSON object (A2A has no positional params)',
    );
  }
  return { ok: true, method, idToken: target.idToken, notification: !hasId, params: params ?? {} };
}

function invalid(target: ReplyTarget, reason: string): FrameResult {
  return { ok: false, ...target, error: new InvalidRequestError(reason) };
}

function methodNotFound(method: string): MethodNotFoundError {
  const lower = method.toLowerCase();
  const near = OPERATION_NAMES.find((name) => name.toLowerCase() === lower);
  const hint = near
    ? `; method names are case-sensitive: did you mean "${near}"?`
    : `; A2A methods are ${OPERATION_NAMES.join(', ')}`;
  return new MethodNotFoundError(`Method ${JSON.stringify(method).slice(0, 80)} not found${hint}`);
}
