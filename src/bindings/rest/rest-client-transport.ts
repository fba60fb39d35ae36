/**
 * The HTTP+JSON/REST binding, client half (spec 11): each operation is the HTTP request of its
 * `google.api.http` mapping (see `rest-client-paths.ts`), with `application/a2a+json` bodies
 * (`application/json` is accepted back too); errors are `google.rpc.Status` bodies read with
 * `fromHttpErrorBody`; `SendStreamingMessage` and `SubscribeToTask` answer `text/event-stream`
 * whose `data:` is a `StreamResponse` (spec 11.7).
 *
 * `SubscribeToTask`: the proto maps it to `GET /tasks/{id}:subscribe`, while the prose of spec
 * 5.3 and 11.3.2 says `POST`. The proto is the normative source of the mapping, so GET comes
 * first; a server that answers 405 gets `POST` instead, and the transport remembers that for
 * the interface.
 *
 * An error inside a stream has no format in spec 11.7; an event `event: error` (or any event
 * whose data is an `{ "error": ... }` status) is read as a `google.rpc.Status` body, as servers
 * in the wild (the official JS SDK) send it.
 */

import { HTTP_JSON_BINDING } from '../../protocol/protocol-bindings.js';
import { fromHttpErrorBody } from '../../protocol/error-serialization.js';
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
import { ProtocolViolationError } from '../client/transport-errors.js';
import {
  describeRequest,
  excerpt,
  httpStatusError,
  isJsonMediaType,
  mediaTypeOf,
  parseJsonBody,
  readBodyText,
  readSseEvents,
} from '../client/transport-http.js';
import { restRoute, type RestRoute } from './rest-client-paths.js';

/** The media type of A2A JSON bodies (spec 14.1). */
export const A2A_JSON_MEDIA_TYPE = 'application/a2a+json';

const JSON_ACCEPT = `${A2A_JSON_MEDIA_TYPE}, application/json`;
const STREAM_ACCEPT = `text/event-stream, ${JSON_ACCEPT}`;

function isErrorStatusBody(value: unknown): value is { error: Record<string, unknown> } {
  if (typeof value !== 'object' || value === null) return false;
  const error = (value as { error?: unknown }).error;
  return typeof error === 'object' && error !== null;
}

/**
 * How an HTTP+JSON transport writes its requests and reads its answers: A2A 1.0 as it is
 * ({@link A2A_REST}), or a translation at the edge (A2A 0.3's `/v1/...`). The HTTP, SSE and
 * size handling and the validation of what comes back are the transport's, whatever the dialect.
 */
export interface RestDialect {
  /** The media type of request bodies (`application/a2a+json` for 1.0; 0.3 says `application/json`). */
  readonly mediaType: string;
  /**
   * The HTTP request of a call; `method` overrides the mapping's verb (`SubscribeToTask` over POST).
   *
   * @throws a typed A2A error for an operation the dialect cannot express (nothing is sent).
   */
  route(call: UnaryCall | StreamCall, method: RestRoute['method'] | undefined): RestRoute;
  /** Adjusts the service-parameter headers of a request. */
  editHeaders(headers: Headers): void;
  /** Whether the data of an SSE event is an error body (besides `event: error`). */
  isErrorBody(value: unknown): boolean;
  /** The typed A2A error of an error body with its HTTP status, `undefined` when it has none. */
  errorOf(status: number, body: unknown): Error | undefined;
  /** The 1.0 result of `operation` from the parsed body (validated afterwards). */
  resultOf(operation: UnaryOperationName, body: unknown, where: string): unknown;
  /**
   * The 1.0 stream payload of an event (validated afterwards), `undefined` to skip the event;
   * `final` ends the stream after it.
   */
  eventOf(
    value: unknown,
    where: string,
  ): { readonly payload: unknown; readonly final: boolean } | undefined;
}

/** A2A 1.0: the proto's `google.api.http` mapping, bodies and events read as they are. */
export const A2A_REST: RestDialect = {
  mediaType: A2A_JSON_MEDIA_TYPE,
  route: (call, method) => restRoute(call.operation, call.message, call.url, method),
  editHeaders: () => undefined,
  isErrorBody: isErrorStatusBody,
  errorOf: (status, body) => fromHttpErrorBody(status, body),
  resultOf: (_operation, body) => body,
  eventOf: (value) => ({ payload: value, final: false }),
};

class RestClientTransport implements ClientTransport {
  readonly protocolBinding = HTTP_JSON_BINDING;
  readonly #send: HttpSend;
  readonly #maxEventLength: number;
  readonly #maxResponseBytes: number;
  readonly #dialect: RestDialect;
  /** The server refused `GET …:subscribe` with 405: use `POST` from now on. */
  #subscribeWithPost = false;

  constructor(context: ClientTransportContext, dialect: RestDialect) {
    this.#dialect = dialect;
    this.#send = context.send;
    this.#maxEventLength = context.maxEventLength;
    this.#maxResponseBytes = context.maxResponseBytes;
  }

  async unary<N extends UnaryOperationName>(call: UnaryCall<N>): Promise<UnaryCallResult<N>> {
    const { operation } = call;
    const request = this.#request(call, this.#dialect.route(call, undefined), JSON_ACCEPT);
    const response = await this.#send(request);
    const text = await readBodyText(response, request, this.#maxResponseBytes);
    if (!response.ok) throw this.#failure(response, text, request);
    const where = describeRequest(request);
    const headers = response.headers;
    if (
      text === '' &&
      (response.status === 204 || operation === 'DeleteTaskPushNotificationConfig')
    ) {
      return { stream: false, message: parseOperationResult(operation, undefined, where), headers };
    }
    const mediaType = mediaTypeOf(response);
    if (mediaType !== '' && !isJsonMediaType(mediaType)) {
      throw new ProtocolViolationError(
        `${where} answered ${mediaType}, not ${A2A_JSON_MEDIA_TYPE}: ${excerpt(text)}`,
      );
    }
    const body = this.#dialect.resultOf(operation, parseJsonBody(text, request), where);
    const message = parseOperationResult(operation, body, where);
    return { stream: false, message, headers };
  }

  async stream<N extends StreamingOperationName>(call: StreamCall<N>): Promise<StreamCallResult> {
    const subscribe = call.operation === 'SubscribeToTask';
    const post = subscribe && this.#subscribeWithPost;
    let opened = await this.#open(call, post ? 'POST' : undefined);
    if (subscribe && !post && opened.response.status === 405) {
      // The proto says GET, the prose POST: try the other one (see the module documentation).
      await readBodyText(opened.response, opened.request, this.#maxResponseBytes);
      opened = await this.#open(call, 'POST');
      if (opened.response.status !== 405) this.#subscribeWithPost = true;
    }
    const { response, request } = opened;
    if (response.ok && mediaTypeOf(response) === 'text/event-stream') {
      return { stream: true, message: this.#events(response, request), headers: response.headers };
    }
    const text = await readBodyText(response, request, this.#maxResponseBytes);
    if (!response.ok) throw this.#failure(response, text, request);
    throw new ProtocolViolationError(
      `${call.operation} must answer with text/event-stream; ${describeRequest(request)} answered ` +
        `${mediaTypeOf(response) || 'no content type'}: ${excerpt(text)}`,
    );
  }

  async #open(
    call: StreamCall,
    method: RestRoute['method'] | undefined,
  ): Promise<{ response: Response; request: Request }> {
    const route = this.#dialect.route(call, method);
    const request = this.#request(call, route, STREAM_ACCEPT);
    return { response: await this.#send(request), request };
  }

  #request(call: UnaryCall | StreamCall, route: RestRoute, accept: string): Request {
    const headers = new Headers(call.headers);
    this.#dialect.editHeaders(headers);
    headers.set('accept', accept);
    if (route.body !== undefined) headers.set('content-type', this.#dialect.mediaType);
    const lastEventId = call.stream ? call.lastEventId : undefined;
    if (lastEventId !== undefined) headers.set('last-event-id', lastEventId);
    const init: RequestInit = { method: route.method, headers, signal: call.signal };
    if (route.body !== undefined) init.body = route.body;
    return new Request(route.url, init);
  }

  /** The typed A2A error of a failed response, or an `HttpStatusError` when it carries none. */
  #failure(response: Response, text: string, request: Request): Error {
    let body: unknown;
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      return httpStatusError(response, text, request);
    }
    return this.#dialect.errorOf(response.status, body) ?? httpStatusError(response, text, request);
  }

  async *#events(response: Response, request: Request): AsyncGenerator<StreamItem> {
    const where = describeRequest(request);
    for await (const event of readSseEvents(response, request, this.#maxEventLength)) {
      const read = this.#read(event, request, where);
      if (read === undefined) continue;
      const payload = parseStreamPayload(read.payload, where);
      yield event.id === undefined || event.id === '' ? { payload } : { id: event.id, payload };
      // A stream is over once an event says so (0.3's `final`), whether or not the agent closes it.
      if (read.final) return;
    }
  }

  #read(event: SseEvent, request: Request, where: string): ReturnType<RestDialect['eventOf']> {
    const value = parseJsonBody(event.data, request);
    if (event.event === 'error' || this.#dialect.isErrorBody(value)) {
      // An event has no HTTP status of its own: the status body's code, else 500.
      const code = isErrorStatusBody(value) ? value.error.code : undefined;
      throw (
        this.#dialect.errorOf(typeof code === 'number' ? code : 500, value) ??
        new ProtocolViolationError(
          `${where} sent an error event that is not an A2A error: ${excerpt(event.data)}`,
        )
      );
    }
    return this.#dialect.eventOf(value, where);
  }
}

/** Creates the HTTP+JSON transport of an interface (a {@link ClientTransportFactory}). */
export function createRestClientTransport(context: ClientTransportContext): ClientTransport {
  return new RestClientTransport(context, A2A_REST);
}

/**
 * Creates an HTTP+JSON transport that speaks `dialect` (the same HTTP, SSE and validation as
 * {@link createRestClientTransport}).
 */
export function createRestDialectTransport(
  context: ClientTransportContext,
  dialect: RestDialect,
): ClientTransport {
  return new RestClientTransport(context, dialect);
}
