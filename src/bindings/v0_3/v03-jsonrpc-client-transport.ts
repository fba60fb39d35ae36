/**
 * JSON-RPC 0.3, client half: the transport the client uses for an interface at protocol version
 * 0.3. It takes the same 1.0 calls as every transport and hands back the same validated 1.0
 * values and typed errors: each request is written as its 0.3 method and params
 * (`v03-requests.ts`), each result and event read back into 1.0 (`v03-results.ts`, `v03-task.ts`)
 * and then validated like a 1.0 answer. On the wire it is what 0.3 clients send: no `A2A-Version`
 * (empty means 0.3, spec 3.6.2), extensions in `X-A2A-Extensions` as well as `A2A-Extensions`.
 *
 * A 0.3 event marked `final: true` ends the stream there, as 0.3 clients read it. `ListTasks` has
 * no 0.3 JSON-RPC method: it fails with `UnsupportedOperationError` without a request.
 */

import type { JsonRpcErrorObject } from '../../protocol/error-serialization.js';
import { UnsupportedOperationError, type A2AError } from '../../protocol/errors.js';
import { EXTENSIONS_HEADER, VERSION_HEADER } from '../../protocol/service-parameters.js';
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
import { isObject, translate, UntranslatableError } from './translate/untranslatable.js';
import { errorFromV03 } from './translate/v03-errors.js';
import { methodOf, requestToV03 } from './translate/v03-requests.js';
import { resultFromV03 } from './translate/v03-results.js';
import { streamEventFromV03 } from './translate/v03-task.js';

/** The binding name of the interfaces this transport serves. */
export const V03_JSONRPC_BINDING = 'JSONRPC';

type Outcome = { readonly result: unknown } | { readonly error: Error };

function errorOf(value: unknown): A2AError | CustomJsonRpcError | undefined {
  if (!isObject(value) || typeof value.code !== 'number' || !Number.isInteger(value.code)) {
    return undefined;
  }
  const object: JsonRpcErrorObject = {
    code: value.code,
    message: typeof value.message === 'string' ? value.message : '',
    data: value.data,
  };
  return errorFromV03(object) ?? new CustomJsonRpcError(object.code, object.message, value.data);
}

function outcomeOf(value: unknown, id: number, where: string): Outcome | undefined {
  if (!isObject(value) || value.jsonrpc !== '2.0') return undefined;
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

/** Reads a 0.3 value into 1.0; what cannot be read is the agent's protocol violation. */
function translated<T>(where: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (!(error instanceof UntranslatableError)) throw error;
    throw new ProtocolViolationError(
      `${error.message} (from ${where}, an A2A 0.3 agent)`,
      error.violations,
      { cause: error },
    );
  }
}

class V03JsonRpcClientTransport implements ClientTransport {
  readonly protocolBinding = V03_JSONRPC_BINDING;
  readonly #send: HttpSend;
  readonly #maxEventLength: number;
  readonly #maxResponseBytes: number;
  #nextId = 1;

  constructor(context: ClientTransportContext) {
    this.#send = context.send;
    this.#maxEventLength = context.maxEventLength;
    this.#maxResponseBytes = context.maxResponseBytes;
  }

  async unary<N extends UnaryOperationName>(call: UnaryCall<N>): Promise<UnaryCallResult<N>> {
    const id = this.#nextId++;
    const request = this.#request(call, id, 'application/json', undefined);
    const response = await this.#send(request);
    const outcome = await this.#readOutcome(response, request, id);
    if ('error' in outcome) throw outcome.error;
    const where = describeRequest(request);
    const value = translated(where, () => resultFromV03(call.operation, outcome.result));
    const message = parseOperationResult(call.operation, value, where);
    return { stream: false, message, headers: response.headers };
  }

  async stream<N extends StreamingOperationName>(call: StreamCall<N>): Promise<StreamCallResult> {
    const id = this.#nextId++;
    const request = this.#request(
      call,
      id,
      'text/event-stream, application/json',
      call.lastEventId,
    );
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
    const method = methodOf(call.operation);
    if (method === undefined) {
      throw new UnsupportedOperationError(
        `${call.operation} has no A2A 0.3 JSON-RPC method; this agent speaks only 0.3`,
      );
    }
    const headers = new Headers(call.headers);
    headers.delete(VERSION_HEADER);
    const extensions = headers.get(EXTENSIONS_HEADER);
    if (extensions !== null) headers.set('X-A2A-Extensions', extensions);
    headers.set('content-type', 'application/json');
    headers.set('accept', accept);
    if (lastEventId !== undefined) headers.set('last-event-id', lastEventId);
    const params = requestToV03(call.operation, call.message as never);
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, params });
    return new Request(call.url, { method: 'POST', headers, body, signal: call.signal });
  }

  async #readOutcome(response: Response, request: Request, id: number): Promise<Outcome> {
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
      const outcome = outcomeOf(parseJsonBody(event.data, request), id, where);
      if (outcome === undefined) {
        throw new ProtocolViolationError(
          `An event of ${where} is not a JSON-RPC 2.0 response object: ${event.data.slice(0, 200)}`,
        );
      }
      if ('error' in outcome) throw outcome.error;
      const read = translated(where, () =>
        translate('An A2A 0.3 event', (issues) =>
          streamEventFromV03(outcome.result, 'event', issues),
        ),
      );
      if (read === undefined) continue;
      const payload = parseStreamPayload(read.event, where);
      yield event.id === undefined || event.id === '' ? { payload } : { id: event.id, payload };
      // A 0.3 stream is over once an event says so, whether or not the agent closes it.
      if (read.final) return;
    }
  }
}

/** Creates the JSON-RPC 0.3 transport of an interface (a `ClientTransportFactory`). */
export function createV03JsonRpcClientTransport(context: ClientTransportContext): ClientTransport {
  return new V03JsonRpcClientTransport(context);
}
