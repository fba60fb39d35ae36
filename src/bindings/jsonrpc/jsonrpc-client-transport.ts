/**
 * The JSON-RPC binding, client half (spec 9): every operation is a `POST` of a JSON-RPC 2.0
 * request to the interface URL; unary operations answer with one JSON-RPC response, streaming
 * ones with `text/event-stream` whose events each carry a JSON-RPC response (spec 9.4.2). An error
 * answered before the stream starts is an ordinary JSON-RPC error response; an error event inside
 * the stream ends it with the typed error.
 *
 * Transport-level refusals (405, 413, 415 from Tandem's server) come with a JSON-RPC error body
 * and a non-200 status: the body decides the error. A failed status without a JSON-RPC body (a
 * proxy's 502) is an `HttpStatusError`, which the client may retry.
 */

import { fromJsonRpcError, type JsonRpcErrorObject } from '../../protocol/error-serialization.js';
import type { A2AError } from '../../protocol/errors.js';
import { JSONRPC_BINDING } from '../../protocol/protocol-bindings.js';
import type { SseEvent } from '../../protocol/sse-decoder.js';
import type {
  ClientTransport,
  ClientTransportContext,
  StreamCall,
  StreamCallResult,
  StreamItem,
  StreamingOperationName,
  UnaryCall,
  UnaryCallResult,
  UnaryOperationName,
} from '../client/client-transport.js';
import type { HttpSend } from '../client/http-send.js';
import { parseOperationResult, parseStreamPayload } from '../client/response-validation.js';
import { CustomJsonRpcError, ProtocolViolationError } from '../client/transport-errors.js';
import {
  describeRequest,
  httpStatusError,
  isJsonMediaType,
  mediaTypeOf,
  parseJsonBody,
  readBodyText,
  readSseEvents,
} from '../client/transport-http.js';

type JsonRpcOutcome = { readonly result: unknown } | { readonly error: Error };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * How a JSON-RPC transport writes its requests and reads its answers: A2A 1.0 as it is
 * ({@link A2A_JSONRPC}), or a translation at the edge (A2A 0.3). The envelope, the HTTP and SSE
 * handling and the validation of what comes back are the transport's, whatever the dialect.
 */
export interface JsonRpcDialect {
  /**
   * The method and params of a call.
   *
   * @throws a typed A2A error for an operation the dialect cannot express (nothing is sent).
   */
  request(call: UnaryCall | StreamCall): { readonly method: string; readonly params: unknown };
  /** Adjusts the service-parameter headers of a request (called before the transport's own). */
  editHeaders(headers: Headers): void;
  /** The typed A2A error of a JSON-RPC error object, or `undefined` for a code it does not know. */
  errorOf(object: JsonRpcErrorObject): A2AError | undefined;
  /** The 1.0 result of `operation`, read from the response's `result` (validated afterwards). */
  resultOf(operation: UnaryOperationName, result: unknown, where: string): unknown;
  /**
   * The 1.0 stream payload of an event's `result` (validated afterwards), `undefined` to skip the
   * event; `final` ends the stream after it.
   */
  eventOf(
    result: unknown,
    where: string,
  ): { readonly payload: unknown; readonly final: boolean } | undefined;
}

/** A2A 1.0: operations are methods, messages are params, results and events are read as they are. */
export const A2A_JSONRPC: JsonRpcDialect = {
  request: (call) => ({ method: call.operation, params: call.message }),
  editHeaders: () => undefined,
  errorOf: fromJsonRpcError,
  resultOf: (_operation, result) => result,
  eventOf: (result) => ({ payload: result, final: false }),
};

/** The typed error of a JSON-RPC error object, or `undefined` when it is not one. */
function errorOf(
  value: unknown,
  dialect: JsonRpcDialect,
): A2AError | CustomJsonRpcError | undefined {
  if (!isRecord(value) || typeof value.code !== 'number' || !Number.isInteger(value.code)) {
    return undefined;
  }
  const message = typeof value.message === 'string' ? value.message : '';
  const object = { code: value.code, message, data: value.data };
  return dialect.errorOf(object) ?? new CustomJsonRpcError(value.code, message, value.data);
}

/**
 * Reads a JSON-RPC response object: its result, or its error as a typed error. Returns
 * `undefined` when the value is not a JSON-RPC response at all.
 */
function outcomeOf(
  value: unknown,
  id: number,
  where: string,
  dialect: JsonRpcDialect,
): JsonRpcOutcome | undefined {
  if (!isRecord(value) || value.jsonrpc !== '2.0') return undefined;
  if ('error' in value) {
    const error = errorOf(value.error, dialect);
    if (error === undefined) {
      throw new ProtocolViolationError(
        `The JSON-RPC response of ${where} has an "error" without an integer "code"`,
      );
    }
    return { error };
  }
  if (!('result' in value)) return undefined;
  if (value.id !== id) {
    throw new ProtocolViolationError(
      `The JSON-RPC response of ${where} answers request id ${JSON.stringify(value.id)}, not ${id}`,
    );
  }
  return { result: value.result };
}

class JsonRpcClientTransport implements ClientTransport {
  readonly protocolBinding = JSONRPC_BINDING;
  readonly #send: HttpSend;
  readonly #maxEventLength: number;
  readonly #maxResponseBytes: number;
  readonly #dialect: JsonRpcDialect;
  #nextId = 1;

  constructor(context: ClientTransportContext, dialect: JsonRpcDialect) {
    this.#send = context.send;
    this.#maxEventLength = context.maxEventLength;
    this.#maxResponseBytes = context.maxResponseBytes;
    this.#dialect = dialect;
  }

  async unary<N extends UnaryOperationName>(call: UnaryCall<N>): Promise<UnaryCallResult<N>> {
    const id = this.#nextId++;
    const request = this.#request(call, id, 'application/json', undefined);
    const response = await this.#send(request);
    const outcome = await this.#readOutcome(response, request, id);
    if ('error' in outcome) throw outcome.error;
    const where = describeRequest(request);
    const result = this.#dialect.resultOf(call.operation, outcome.result, where);
    const message = parseOperationResult(call.operation, result, where);
    return { stream: false, message, headers: response.headers };
  }

  async stream<N extends StreamingOperationName>(call: StreamCall<N>): Promise<StreamCallResult> {
    const id = this.#nextId++;
    const accept = 'text/event-stream, application/json';
    const request = this.#request(call, id, accept, call.lastEventId);
    const response = await this.#send(request);
    if (response.ok && mediaTypeOf(response) === 'text/event-stream') {
      return {
        stream: true,
        message: this.#events(response, request, id),
        headers: response.headers,
      };
    }
    const outcome = await this.#readOutcome(response, request, id);
    if ('error' in outcome) throw outcome.error;
    throw new ProtocolViolationError(
      `${call.operation} must answer with text/event-stream; ${describeRequest(request)} ` +
        'answered a single JSON-RPC result',
    );
  }

  #request(
    call: UnaryCall | StreamCall,
    id: number,
    accept: string,
    lastEventId: string | undefined,
  ): Request {
    const { method, params } = this.#dialect.request(call);
    const headers = new Headers(call.headers);
    this.#dialect.editHeaders(headers);
    headers.set('content-type', 'application/json');
    headers.set('accept', accept);
    if (lastEventId !== undefined) headers.set('last-event-id', lastEventId);
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, params });
    return new Request(call.url, { method: 'POST', headers, body, signal: call.signal });
  }

  /** The JSON-RPC response in a non-streamed body, whatever its status. */
  async #readOutcome(response: Response, request: Request, id: number): Promise<JsonRpcOutcome> {
    const text = await readBodyText(response, request, this.#maxResponseBytes);
    const where = describeRequest(request);
    let value: unknown;
    if (response.ok || isJsonMediaType(mediaTypeOf(response))) {
      try {
        value = parseJsonBody(text, request);
      } catch (error) {
        if (response.ok) throw error;
      }
    }
    const outcome = value === undefined ? undefined : outcomeOf(value, id, where, this.#dialect);
    // A refusal before the call (401, 403, 429) is HTTP's, whatever JSON-RPC error the body
    // carries (-32600 on Tandem): it is about the caller, not the request, and on every other
    // binding it is an HttpStatusError too.
    if (outcome !== undefined && (response.ok || ('error' in outcome && !isRefusal(response))))
      return outcome;
    if (!response.ok) throw httpStatusError(response, text, request);
    throw new ProtocolViolationError(
      `The response of ${where} is not a JSON-RPC 2.0 response object (it needs "jsonrpc": "2.0" ` +
        'and a "result" or an "error")',
    );
  }

  async *#events(response: Response, request: Request, id: number): AsyncGenerator<StreamItem> {
    const where = describeRequest(request);
    for await (const event of readSseEvents(response, request, this.#maxEventLength)) {
      const read = this.#read(event, request, id, where);
      if (read === undefined) continue;
      const payload = parseStreamPayload(read.payload, where);
      yield event.id === undefined || event.id === '' ? { payload } : { id: event.id, payload };
      // A stream is over once an event says so (0.3's `final`), whether or not the agent closes it.
      if (read.final) return;
    }
  }

  #read(
    event: SseEvent,
    request: Request,
    id: number,
    where: string,
  ): ReturnType<JsonRpcDialect['eventOf']> {
    const outcome = outcomeOf(parseJsonBody(event.data, request), id, where, this.#dialect);
    if (outcome === undefined) {
      throw new ProtocolViolationError(
        `An event of ${where} is not a JSON-RPC 2.0 response object: ${event.data.slice(0, 200)}`,
      );
    }
    if ('error' in outcome) throw outcome.error;
    return this.#dialect.eventOf(outcome.result, where);
  }
}

/** Whether the response refuses the caller rather than answering the call. */
function isRefusal(response: Response): boolean {
  return response.status === 401 || response.status === 403 || response.status === 429;
}

/** Creates the JSON-RPC transport of an interface (a {@link ClientTransportFactory}). */
export function createJsonRpcClientTransport(context: ClientTransportContext): ClientTransport {
  return new JsonRpcClientTransport(context, A2A_JSONRPC);
}

/**
 * Creates a JSON-RPC transport that speaks `dialect` (the same envelope, HTTP and validation as
 * {@link createJsonRpcClientTransport}).
 */
export function createJsonRpcDialectTransport(
  context: ClientTransportContext,
  dialect: JsonRpcDialect,
): ClientTransport {
  return new JsonRpcClientTransport(context, dialect);
}
