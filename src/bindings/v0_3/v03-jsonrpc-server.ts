/**
 * The server half of JSON-RPC 0.3: a request whose method is a 0.3 name, already parsed and
 * framed by the JSON-RPC door, is translated to its 1.0 operation and run through the same call
 * pipeline as a 1.0 request (`server-call.ts`: validation, call context, extensions, the operation
 * table, error mapping), and its result or stream is translated back. The version check is the
 * door's: it sends only requests at 0.3 (empty or `0.3` `A2A-Version`) here.
 *
 * Params that cannot be translated are `InvalidParamsError` naming the 0.3 fields; a result that
 * cannot be written in 0.3 (a task without a context id) is logged and answered `InternalError`:
 * it is the server's fault, not the client's.
 */

import {
  InvalidRequestError,
  InternalError,
  MethodNotFoundError,
  type A2AError,
} from '../../protocol/errors.js';
import type { StreamResponse } from '../../protocol/generated/types.js';
import type { OperationName } from '../../protocol/operations.js';
import { JSONRPC_BINDING } from '../../protocol/protocol-bindings.js';
import { encodeSseEvent } from '../../protocol/sse-encoder.js';
import type { Logger } from '../../runtime/logger.js';
import type { AgentEndpoint } from '../server/agent-endpoint.js';
import { taskIdOf, type CallReport } from '../server/call-report.js';
import { prepareCall } from '../server/prepare-call.js';
import { refusalOf } from '../server/refusals.js';
import type { BindingRequest, HttpRefusal } from '../server/server-binding.js';
import {
  isStreaming,
  wireErrorOf,
  type ServerCall,
  type StreamingOperation,
  type UnaryOperation,
} from '../server/server-call.js';
import { SseEventStream, type SseFraming } from '../server/sse-event-stream.js';
import { StreamCallReport } from '../server/stream-report.js';
import { UntranslatableError } from './translate/untranslatable.js';
import { errorToV03, invalidParamsOf } from './translate/v03-errors.js';
import { OPERATION_OF, requestFromV03 } from './translate/v03-requests.js';
import { resultToV03 } from './translate/v03-results.js';
import { streamEventToV03 } from './translate/v03-task.js';
import { V03_METHODS, V03_VERSION, isV03Method } from './translate/v03-types.js';

/** One 0.3 call, framed: its method and params, and what the transport knows. */
export interface V03Call {
  readonly method: string;
  readonly params: unknown;
  /** The request id as the JSON token to echo. */
  readonly idToken: string;
  /** No `id` member: execute, answer nothing. */
  readonly notification: boolean;
  /** The request as routed to the door: the call's source. */
  readonly source: BindingRequest;
  /** The tenant of the 0.3 interface (0.3 requests carry none). */
  readonly tenant: string;
  /** How results, errors and events are written; JSON-RPC 0.3 responses by default. */
  readonly wire?: V03Wire | undefined;
}

/**
 * How a 0.3 binding writes what the call produced: JSON-RPC 0.3 envelopes, or the bare ProtoJSON
 * bodies of HTTP+JSON 0.3. Both start from the kind-tagged 0.3 value.
 */
export interface V03Wire {
  /** The response body of a kind-tagged 0.3 result (may throw: the server's fault). */
  result(operation: OperationName, result: unknown): string;
  /** The response body of an error. */
  error(error: A2AError): string;
  /** The SSE framing of a stream's events. */
  framing(logger: Logger): SseFraming;
}

/** What the door writes back: a body, nothing, or a stream; with what the log reads. */
export type V03Reply =
  | { readonly kind: 'body'; readonly body: string; readonly refusal?: HttpRefusal | undefined }
  | { readonly kind: 'empty' }
  | {
      readonly kind: 'stream';
      readonly stream: SseEventStream;
      /** The validated request, for the task the log names. */
      readonly request: unknown;
    };

export interface V03Outcome {
  readonly reply: V03Reply;
  /** Extensions the handler activated, echoed in `A2A-Extensions` and 0.3's `X-A2A-Extensions`. */
  readonly activatedExtensions?: readonly string[] | undefined;
  readonly operation: OperationName | undefined;
  readonly taskId: string | undefined;
  readonly error: A2AError | undefined;
}

/**
 * What the request log reads of a 0.3 call: a stream's report, whose outcome is known once it has
 * finished, else the outcome's. `codeOf` is the binding's code of an error (the JSON-RPC code,
 * or the HTTP status).
 */
export function v03ReportOf(
  binding: string,
  outcome: V03Outcome,
  codeOf: (error: A2AError) => number,
): CallReport {
  const reply = outcome.reply;
  if (reply.kind === 'stream') {
    return new StreamCallReport(binding, outcome.operation, reply.request, reply.stream);
  }
  const error = outcome.error;
  return {
    binding,
    operation: outcome.operation,
    taskId: outcome.taskId,
    errorCode: error === undefined ? undefined : codeOf(error),
    errorReason: error?.reason,
  };
}

function envelope(idToken: string, member: 'result' | 'error', json: string): string {
  return '{"jsonrpc":"2.0","id":' + idToken + ',"' + member + '":' + json + '}';
}

/** A 0.3 JSON-RPC error response. */
export function v03ErrorBody(idToken: string, error: A2AError): string {
  return envelope(idToken, 'error', JSON.stringify(errorToV03(error)));
}

/** JSON-RPC 0.3: every body an envelope echoing the request id. */
function jsonRpcWire(idToken: string): V03Wire {
  return {
    result: (_operation, result) => envelope(idToken, 'result', JSON.stringify(result)),
    error: (error) => v03ErrorBody(idToken, error),
    framing: (logger) => new V03Framing(idToken, logger),
  };
}

/** Frames each 1.0 event as a 0.3 JSON-RPC response whose result is the 0.3 event. */
class V03Framing implements SseFraming {
  readonly binding = JSONRPC_BINDING;
  readonly #idToken: string;
  readonly #logger: Logger;

  constructor(idToken: string, logger: Logger) {
    this.#idToken = idToken;
    this.#logger = logger;
  }

  eventData(json: string): string {
    let result: string;
    try {
      result = JSON.stringify(streamEventToV03(JSON.parse(json) as StreamResponse));
    } catch (error) {
      // A 1.0 event 0.3 cannot express; the client gets an error event instead of a bad one.
      this.#logger.error({ err: error }, 'a stream event could not be written in A2A 0.3');
      return 'data: ' + v03ErrorBody(this.#idToken, new InternalError());
    }
    return 'data: ' + envelope(this.#idToken, 'result', result);
  }

  errorFrame(error: A2AError): string {
    return encodeSseEvent({ data: v03ErrorBody(this.#idToken, error) });
  }

  errorCodeOf(error: A2AError): number {
    return error.code;
  }
}

function methodNotFound(method: string): MethodNotFoundError {
  return new MethodNotFoundError(
    `Method ${JSON.stringify(method).slice(0, 80)} is not an A2A ${V03_VERSION} method; ` +
      `they are ${V03_METHODS.join(', ')}`,
  );
}

/**
 * Answers one 0.3 call; never rejects.
 *
 * @param endpoint the agent, whose 1.0 chain the translated call goes through.
 */
export async function serveV03Call(
  endpoint: AgentEndpoint,
  call: V03Call,
  logger: Logger,
): Promise<V03Outcome> {
  const method = call.method;
  const writer = call.wire ?? jsonRpcWire(call.idToken);
  if (!isV03Method(method)) return failed(call, methodNotFound(method), undefined, undefined);
  const operation = OPERATION_OF[method];
  let request: unknown;
  try {
    let translated: unknown;
    try {
      translated = requestFromV03(method, call.params, call.tenant);
    } catch (error) {
      if (error instanceof UntranslatableError) throw invalidParamsOf(error);
      throw error;
    }
    const headers = call.source.serviceParameters;
    const prepared = prepareCall(endpoint, operation, translated, call.source, {
      root: 'params',
      protocolVersion: V03_VERSION,
      compatVersion: V03_VERSION,
      extensions: headers.get('x-a2a-extensions') ?? headers.get('a2a-extensions'),
    });
    request = prepared.request;
    const opened = prepared.call;
    const activatedExtensions = opened.activatedExtensions;
    if (isStreaming(operation)) {
      const events = await endpoint.invoke<StreamingOperation>(operation, opened, request as never);
      const stream = new SseEventStream(events, writer.framing(logger), logger, operation);
      if (call.notification) {
        stream.stop();
        return {
          reply: { kind: 'empty' },
          operation,
          taskId: taskIdOf(request, undefined),
          error: undefined,
        };
      }
      return {
        activatedExtensions,
        reply: { kind: 'stream', stream, request },
        operation,
        taskId: taskIdOf(request, undefined),
        error: undefined,
      };
    }
    const result = await listAll(endpoint, operation, opened, request);
    const taskId = taskIdOf(request, result);
    if (call.notification) return { reply: { kind: 'empty' }, operation, taskId, error: undefined };
    let body: string;
    try {
      body = writer.result(operation, resultToV03(operation, result));
    } catch (error) {
      logger.error({ err: error, operation }, 'a result could not be written in A2A 0.3');
      throw new InternalError();
    }
    return {
      activatedExtensions,
      reply: { kind: 'body', body },
      operation,
      taskId,
      error: undefined,
    };
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal !== undefined) {
      const limited = new InvalidRequestError(refusal.message);
      const outcome = failed(call, limited, operation, request);
      return outcome.reply.kind === 'body'
        ? { ...outcome, reply: { ...outcome.reply, refusal } }
        : outcome;
    }
    const wire = wireErrorOf(error, logger, { binding: JSONRPC_BINDING, operation });
    return failed(call, wire, operation, request);
  }
}

/**
 * Invokes a unary operation; `ListTaskPushNotificationConfigs` reads every page, since the 0.3
 * method answers the whole list.
 */
async function listAll(
  endpoint: AgentEndpoint,
  operation: UnaryOperation,
  call: ServerCall,
  request: unknown,
): Promise<unknown> {
  if (operation !== 'ListTaskPushNotificationConfigs') {
    return endpoint.invoke(operation, call, request as never);
  }
  const configs: unknown[] = [];
  let pageToken: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const pageRequest = pageToken === undefined ? request : { ...(request as object), pageToken };
    const result = (await endpoint.invoke(operation, call, pageRequest as never)) as {
      configs?: unknown[];
      nextPageToken?: string;
    };
    configs.push(...(result.configs ?? []));
    pageToken = result.nextPageToken;
    if (pageToken === undefined || pageToken === '') break;
  }
  return { configs };
}

function failed(
  call: V03Call,
  error: A2AError,
  operation: OperationName | undefined,
  request: unknown,
): V03Outcome {
  const taskId = taskIdOf(request, undefined);
  if (call.notification) return { reply: { kind: 'empty' }, operation, taskId, error };
  return {
    reply: { kind: 'body', body: (call.wire ?? jsonRpcWire(call.idToken)).error(error) },
    operation,
    taskId,
    error,
  };
}
