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

import { fromJsonRpcError } from '../../protocol/error-serialization.js';
import type { A2AError } from '../../protocol/errors.js';
import type { OperationRequest } from '../../protocol/operations.js';
import type { SseEvent } from '../../protocol/sse-decoder.js';
import type { CallHandler } from '../transport/client-transport.js';
import { CustomJsonRpcError, ProtocolViolationError } from '../transport/transport-errors.js';
import type {
  ClientTransport,
  ClientTransportContext,
  StreamItem,
  StreamingOperationName,
  TransportCallOptions,
  UnaryOperationName,
  UnaryResult,
} from '../transport/client-transport.js';
import { parseOperationResult, parseStreamPayload } from '../transport/response-validation.js';
import {
  describeRequest,
  httpStatusError,
  isJsonMediaType,
  mediaTypeOf,
  parseJsonBody,
  readBodyText,
  readSseEvents,
} from '../transport/transport-http.js';

/** The binding name in agent cards. */
export const JSONRPC_BINDING = 'JSONRPC';

type JsonRpcOutcome = { readonly result: unknown } | { readonly error: Error };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The typed error of a JSON-RPC error object, or `undefined` when it is not one. */
function errorOf(value: unknown): A2AError | CustomJsonRpcError | undefined {
  if (!isRecord(value) || typeof value.code !== 'number' || !Number.isInteger(value.code)) {
    return undefined;
  }
  const message = typeof value.message === 'string' ? value.message : '';
  const object = { code: value.code, message, data: value.data };
  return fromJsonRpcError(object) ?? new CustomJsonRpcError(value.code, message, value.data);
}

/**
 * Reads a JSON-RPC response object: its result, or its error as a typed error. Returns
 * `undefined` when the value is not a JSON-RPC response at all.
 */
function outcomeOf(value: unknown, id: number, where: string): JsonRpcOutcome | undefined {
  if (!isRecord(value) || value.jsonrpc !== '2.0') return undefined;
  if ('error' in value) {
    const error = errorOf(value.error);
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
  readonly #url: string;
  readonly #send: CallHandler;
  readonly #maxEventLength: number | undefined;
  readonly #maxResponseBytes: number | undefined;
  #nextId = 1;

  constructor(context: ClientTransportContext) {
    this.#url = context.agentInterface.url;
    this.#send = context.send;
    this.#maxEventLength = context.maxEventLength;
    this.#maxResponseBytes = context.maxResponseBytes;
  }

  async call<N extends UnaryOperationName>(
    operation: N,
    request: OperationRequest<N>,
    options: TransportCallOptions,
  ): Promise<UnaryResult<N>> {
    const id = this.#nextId++;
    const httpRequest = this.#request(operation, request, id, options, 'application/json');
    const response = await this.#send({ operation, request: httpRequest });
    const outcome = await this.#readOutcome(response, httpRequest, id);
    if ('error' in outcome) throw outcome.error;
    return parseOperationResult(operation, outcome.result, describeRequest(httpRequest));
  }

  async stream<N extends StreamingOperationName>(
    operation: N,
    request: OperationRequest<N>,
    options: TransportCallOptions,
  ): Promise<AsyncIterable<StreamItem>> {
    const id = this.#nextId++;
    const accept = 'text/event-stream, application/json';
    const httpRequest = this.#request(operation, request, id, options, accept);
    const response = await this.#send({ operation, request: httpRequest });
    if (response.ok && mediaTypeOf(response) === 'text/event-stream') {
      return this.#events(response, httpRequest, id);
    }
    const outcome = await this.#readOutcome(response, httpRequest, id);
    if ('error' in outcome) throw outcome.error;
    throw new ProtocolViolationError(
      `${operation} must answer with text/event-stream; ${describeRequest(httpRequest)} answered ` +
        'a single JSON-RPC result',
    );
  }

  #request(
    operation: string,
    params: unknown,
    id: number,
    options: TransportCallOptions,
    accept: string,
  ): Request {
    const headers = new Headers(options.headers);
    headers.set('content-type', 'application/json');
    headers.set('accept', accept);
    if (options.lastEventId !== undefined) headers.set('last-event-id', options.lastEventId);
    const body = JSON.stringify({ jsonrpc: '2.0', id, method: operation, params });
    return new Request(this.#url, { method: 'POST', headers, body, signal: options.signal });
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
    const outcome = value === undefined ? undefined : outcomeOf(value, id, where);
    if (outcome !== undefined && (response.ok || 'error' in outcome)) return outcome;
    if (!response.ok) throw httpStatusError(response, text, request);
    throw new ProtocolViolationError(
      `The response of ${where} is not a JSON-RPC 2.0 response object (it needs "jsonrpc": "2.0" ` +
        'and a "result" or an "error")',
    );
  }

  async *#events(response: Response, request: Request, id: number): AsyncGenerator<StreamItem> {
    const where = describeRequest(request);
    for await (const event of readSseEvents(response, request, this.#maxEventLength)) {
      yield this.#item(event, request, id, where);
    }
  }

  #item(event: SseEvent, request: Request, id: number, where: string): StreamItem {
    const outcome = outcomeOf(parseJsonBody(event.data, request), id, where);
    if (outcome === undefined) {
      throw new ProtocolViolationError(
        `An event of ${where} is not a JSON-RPC 2.0 response object: ${event.data.slice(0, 200)}`,
      );
    }
    if ('error' in outcome) throw outcome.error;
    const payload = parseStreamPayload(outcome.result, where);
    return event.id === undefined || event.id === '' ? { payload } : { id: event.id, payload };
  }
}

/** Creates the JSON-RPC transport of an interface (a {@link ClientTransportFactory}). */
export function createJsonRpcClientTransport(context: ClientTransportContext): ClientTransport {
  return new JsonRpcClientTransport(context);
}
