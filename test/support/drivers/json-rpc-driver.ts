/**
 * The JSON-RPC 2.0 binding (spec 9) on the raw wire: one POST per call to the interface URL, the
 * operation name as `method`, errors decoded with `fromJsonRpcError`, and streams as SSE whose
 * `data:` is a JSON-RPC response per event. Every envelope must echo the request's `id`.
 */

import {
  fromJsonRpcError,
  type A2AError,
  type JsonRpcErrorObject,
  type OperationRequest,
  type OperationResponse,
  type StreamResponse,
} from '../../../src/index.js';
import type { SseEvent } from '../../../src/codecs.js';
import {
  BindingViolationError,
  type BindingName,
  type CallOptions,
  type EventStream,
  type Reply,
  type StreamEvent,
  type StreamOptions,
  type StreamingOperation,
  type UnaryOperation,
} from './a2a-driver.js';
import { CallRefusedError, refusalStatusOf } from './connection.js';
import { seqOf, sseEventStream } from './sse-event-stream.js';
import {
  WireDriver,
  activatedExtensionsOf,
  isEventStream,
  parseJson,
  serviceHeaders,
} from './wire-driver.js';

let nextRequestId = 1;

interface Envelope {
  readonly result: unknown;
  readonly error: JsonRpcErrorObject | undefined;
}

export class JsonRpcDriver extends WireDriver {
  readonly binding: BindingName = 'jsonrpc';

  async call<N extends UnaryOperation>(
    operation: N,
    request: OperationRequest<N>,
    options: CallOptions = {},
  ): Promise<Reply<OperationResponse<N>>> {
    const id = nextRequestId++;
    const response = await this.send(this.url, this.#init(operation, request, id, options));
    await refusal(response, id, operation);
    if (isEventStream(response)) {
      await response.body?.cancel();
      throw new BindingViolationError(`${operation} answered with an event stream`);
    }
    const raw = await response.text();
    const envelope = envelopeOf(raw, id, operation);
    return {
      result: envelope.result as OperationResponse<N> | undefined,
      error: envelope.error === undefined ? undefined : decode(envelope.error, operation),
      activatedExtensions: activatedExtensionsOf(response),
      raw,
    };
  }

  async open<N extends StreamingOperation>(
    operation: N,
    request: OperationRequest<N>,
    options: StreamOptions = {},
  ): Promise<EventStream> {
    const controller = new AbortController();
    const signal =
      options.signal === undefined
        ? controller.signal
        : AbortSignal.any([options.signal, controller.signal]);
    const id = nextRequestId++;
    const response = await this.send(
      this.url,
      this.#init(operation, request, id, { ...options, signal }),
    );
    await refusal(response, id, operation);
    if (!isEventStream(response)) {
      const envelope = envelopeOf(await response.text(), id, operation);
      if (envelope.error !== undefined) throw decode(envelope.error, operation);
      throw new BindingViolationError(`${operation} answered with a result instead of a stream`);
    }
    return sseEventStream(response, controller, (event, receivedAt) =>
      streamEventOf(event, receivedAt, id, operation),
    );
  }

  #init(operation: string, request: unknown, id: number, options: StreamOptions): RequestInit {
    const init: RequestInit = {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...serviceHeaders(options) },
      body: JSON.stringify({ jsonrpc: '2.0', id, method: operation, params: request }),
    };
    if (options.signal !== undefined) init.signal = options.signal;
    return init;
  }
}

/**
 * Throws the {@link CallRefusedError} of a refused call (401, 403, 429): its body must still be a
 * JSON-RPC error response with the request's id — also when the refusal came before the binding
 * (authentication) — and the refused-call code -32000, never Invalid Request (the request was
 * valid).
 */
async function refusal(response: Response, id: number, operation: string): Promise<void> {
  const status = refusalStatusOf(response.status);
  if (status === undefined) return;
  const raw = await response.text();
  const envelope = envelopeOf(raw, id, operation);
  if (envelope.error === undefined) {
    throw new BindingViolationError(`${operation} answered HTTP ${response.status} with a result`);
  }
  if (envelope.error.code !== -32000) {
    throw new BindingViolationError(
      `${operation} was refused (HTTP ${response.status}) with JSON-RPC code ${envelope.error.code}, not the refused-call code -32000`,
    );
  }
  throw new CallRefusedError(status, envelope.error.message, {
    httpStatus: response.status,
    wwwAuthenticate: response.headers.get('www-authenticate'),
    retryAfter: response.headers.get('retry-after'),
    raw,
  });
}

/** The JSON-RPC response in `text`, checked against the binding. */
function envelopeOf(text: string, id: number | null, operation: string): Envelope {
  const value = parseJson(text, `The answer to ${operation}`);
  if (typeof value !== 'object' || value === null) {
    throw new BindingViolationError(`${operation} answered ${text.slice(0, 200)}`);
  }
  const body = value as { jsonrpc?: unknown; id?: unknown; result?: unknown; error?: unknown };
  const where = `The answer to ${operation} (${text.slice(0, 200)})`;
  if (body.jsonrpc !== '2.0') throw new BindingViolationError(`${where} is not JSON-RPC 2.0`);
  if (body.id !== id) throw new BindingViolationError(`${where} does not echo the id ${id}`);
  if ('result' in body === 'error' in body) {
    throw new BindingViolationError(`${where} must hold exactly one of result and error`);
  }
  if ('result' in body) return { result: body.result, error: undefined };
  const error = body.error as { code?: unknown; message?: unknown } | null;
  if (typeof error?.code !== 'number' || typeof error.message !== 'string') {
    throw new BindingViolationError(`${where} has an error without a code and a message`);
  }
  return { result: undefined, error: error as JsonRpcErrorObject };
}

function decode(error: JsonRpcErrorObject, operation: string): A2AError {
  const decoded = fromJsonRpcError(error);
  if (decoded === undefined) {
    throw new BindingViolationError(
      `${operation} answered the JSON-RPC code ${error.code}, which is no A2A error: ${error.message}`,
    );
  }
  return decoded;
}

function streamEventOf(
  event: SseEvent,
  receivedAt: number,
  id: number,
  operation: string,
): StreamEvent {
  const envelope = envelopeOf(event.data, id, `${operation} (stream event)`);
  if (envelope.error !== undefined) throw decode(envelope.error, operation);
  // The result as sent: the envelope around it is fixed but for the request id.
  const prefix = `{"jsonrpc":"2.0","id":${id},"result":`;
  const json =
    event.data.startsWith(prefix) && event.data.endsWith('}')
      ? event.data.slice(prefix.length, -1)
      : undefined;
  return {
    seq: seqOf(event),
    response: envelope.result as StreamResponse,
    json,
    raw: event.data,
    receivedAt,
  };
}
