/**
 * The server half of the JSON-RPC binding (spec 9): one JSON-RPC 2.0 request in, one reply out —
 * a JSON body, nothing (a notification), or a stream of SSE frames. It knows nothing about HTTP
 * servers: `jsonrpc-http.ts` hands it the body, a header reader and the query string, and writes
 * what it returns. That keeps the binding testable without sockets.
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
  InvalidRequestError,
  JsonParseError,
  MethodNotFoundError,
  type A2AError,
} from '../../protocol/errors.js';
import { stringifyProtocolValue } from '../../protocol/json-text.js';
import { OPERATION_NAMES, isOperationName, type OperationName } from '../../protocol/operations.js';
import { JSONRPC_BINDING } from '../../protocol/protocol-bindings.js';
import { silentLogger, type Logger } from '../../runtime/logger.js';
import type { AgentEndpoint } from '../server/agent-endpoint.js';
import { taskIdOf } from '../server/call-report.js';
import {
  prepareCall,
  type AgentInterfaceSource,
  type CallOpening,
  type CallSource,
} from '../server/prepare-call.js';
import { refusalOf } from '../server/refusals.js';
import { isStreaming, wireErrorOf, type StreamingOperation } from '../server/server-call.js';
import type { HttpRefusal } from '../server/server-binding.js';
import type { SseEventStream } from '../server/sse-event-stream.js';
import {
  NULL_ID_TOKEN,
  REFUSED_CALL_CODE,
  errorEnvelope,
  isCallRefusal,
  refusedCallEnvelope,
  idTokenOf,
  resultEnvelope,
  type JsonRpcId,
} from './jsonrpc-envelope.js';
import { jsonRpcEventStream } from './jsonrpc-event-stream.js';

/**
 * One JSON-RPC call as the transport received it: the body, and the call's source (principal,
 * headers — `A2A-Version`, `A2A-Extensions`, `Last-Event-ID` —, query, signal, peer) with the
 * agent's interfaces for `GetExtendedAgentCard`. A transport may make the signal lazily, behind a
 * getter: it is read only when the call context is asked for it.
 */
export interface JsonRpcRequestInput extends CallSource, AgentInterfaceSource {
  /** The request body, UTF-8. */
  readonly body: string | Uint8Array;
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
  /** The A2A error reason of that error (`TASK_NOT_FOUND`), for logging. */
  readonly errorReason?: string | undefined;
  /** The result value, for logging; `undefined` for an error. */
  readonly result: unknown;
  /**
   * The HTTP status and headers of a refusal (429 for a limit), which JSON-RPC still answers in an
   * error body; absent: 200.
   */
  readonly refusal?: HttpRefusal | undefined;
}

/** A notification was handled: nothing to send (HTTP 204). */
export interface JsonRpcEmptyReply extends JsonRpcReplyBase {
  readonly kind: 'empty';
  readonly errorCode: number | undefined;
  readonly errorReason?: string | undefined;
}

/** A stream of SSE frames (`text/event-stream`). */
export interface JsonRpcStreamReply extends JsonRpcReplyBase {
  readonly kind: 'stream';
  readonly stream: SseEventStream;
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
/** Violations name `params.message.parts[0]`: the field as the client wrote it. */
const JSON_RPC_OPENING: CallOpening = Object.freeze({ root: 'params' });

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
  const errorReason = error.reason;
  if (target.notification) {
    return { kind: 'empty', method, params, activatedExtensions, errorCode, errorReason };
  }
  const body = errorEnvelope(target.idToken, error);
  return {
    kind: 'body',
    body,
    result: undefined,
    method,
    params,
    activatedExtensions,
    errorCode,
    errorReason,
  };
}

/** A call refused inside the pipeline (a limit): its own code, the request's id echoed. */
function refusedReply(
  target: ReplyTarget,
  refusal: HttpRefusal,
  context: ReplyContext,
): JsonRpcReply {
  if (!isCallRefusal(refusal.status)) {
    const reply = errorReply(target, new InvalidRequestError(refusal.message), context);
    return reply.kind === 'body' ? { ...reply, refusal } : reply;
  }
  const base = {
    method: context.method,
    params: context.params,
    activatedExtensions: context.activatedExtensions ?? NO_EXTENSIONS,
    errorCode: REFUSED_CALL_CODE,
    errorReason: refusal.code,
  };
  if (target.notification) return { kind: 'empty', ...base };
  return {
    kind: 'body',
    body: refusedCallEnvelope(target.idToken, refusal),
    result: undefined,
    refusal,
    ...base,
  };
}

/**
 * Creates the JSON-RPC server half for one agent: decodes and checks the request, then runs the
 * shared call pipeline (`server-call.ts`) over the agent's chain.
 */
export function createJsonRpcHandler(
  endpoint: AgentEndpoint,
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
      const { call, request } = prepareCall(endpoint, method, rawParams, input, JSON_RPC_OPENING);
      params = request;
      activatedExtensions = call.activatedExtensions;
      if (isStreaming(method)) {
        // `request` was parsed for `method`, which the narrowing above does not carry over.
        const events = await endpoint.invoke<StreamingOperation>(method, call, request as never);
        const stream = jsonRpcEventStream(events, framed.idToken, logger, method);
        if (!framed.notification) {
          return { kind: 'stream', stream, method, params, activatedExtensions };
        }
        // Nobody will read a notification's stream: release it; the task goes on.
        stream.stop();
        return { kind: 'empty', errorCode: undefined, method, params, activatedExtensions };
      }
      const result = await endpoint.invoke(method, call, request);
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
      const refusal = refusalOf(error);
      if (refusal !== undefined) return refusedReply(framed, refusal, context);
      const wire = wireErrorOf(error, logger, { binding: JSONRPC_BINDING, operation: method });
      return errorReply(framed, wire, context);
    }
  };
}

/** The task a JSON-RPC reply concerned, for the request log. */
export function taskIdOfReply(reply: JsonRpcReply): string | undefined {
  const result =
    reply.kind === 'body'
      ? reply.result
      : reply.kind === 'stream'
        ? reply.stream.firstPayload
        : undefined;
  return taskIdOf(reply.params, result);
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
