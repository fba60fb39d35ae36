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

import { fromHttpErrorBody } from '../../protocol/error-serialization.js';
import type { OperationName, OperationRequest } from '../../protocol/operations.js';
import type { SseEvent } from '../../protocol/sse-decoder.js';
import type { CallHandler } from '../transport/client-transport.js';
import { ProtocolViolationError } from '../transport/transport-errors.js';
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
  excerpt,
  httpStatusError,
  isJsonMediaType,
  mediaTypeOf,
  parseJsonBody,
  readBodyText,
  readSseEvents,
} from '../transport/transport-http.js';
import { restRoute, type RestRoute } from './rest-client-paths.js';

/** The binding name in agent cards. */
export const HTTP_JSON_BINDING = 'HTTP+JSON';

/** The media type of A2A JSON bodies (spec 14.1). */
export const A2A_JSON_MEDIA_TYPE = 'application/a2a+json';

const JSON_ACCEPT = `${A2A_JSON_MEDIA_TYPE}, application/json`;
const STREAM_ACCEPT = `text/event-stream, ${JSON_ACCEPT}`;

function isErrorStatusBody(value: unknown): value is { error: Record<string, unknown> } {
  if (typeof value !== 'object' || value === null) return false;
  const error = (value as { error?: unknown }).error;
  return typeof error === 'object' && error !== null;
}

class RestClientTransport implements ClientTransport {
  readonly protocolBinding = HTTP_JSON_BINDING;
  readonly #url: string;
  readonly #send: CallHandler;
  readonly #maxEventLength: number | undefined;
  readonly #maxResponseBytes: number | undefined;
  /** The server refused `GET …:subscribe` with 405: use `POST` from now on. */
  #subscribeWithPost = false;

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
    const httpRequest = this.#request(
      restRoute(operation, request, this.#url),
      options,
      JSON_ACCEPT,
    );
    const response = await this.#send({ operation, request: httpRequest });
    const text = await readBodyText(response, httpRequest, this.#maxResponseBytes);
    if (!response.ok) throw this.#failure(response, text, httpRequest);
    const where = describeRequest(httpRequest);
    if (
      text === '' &&
      (response.status === 204 || operation === 'DeleteTaskPushNotificationConfig')
    ) {
      return parseOperationResult(operation, undefined, where);
    }
    const mediaType = mediaTypeOf(response);
    if (mediaType !== '' && !isJsonMediaType(mediaType)) {
      throw new ProtocolViolationError(
        `${where} answered ${mediaType}, not ${A2A_JSON_MEDIA_TYPE}: ${excerpt(text)}`,
      );
    }
    return parseOperationResult(operation, parseJsonBody(text, httpRequest), where);
  }

  async stream<N extends StreamingOperationName>(
    operation: N,
    request: OperationRequest<N>,
    options: TransportCallOptions,
  ): Promise<AsyncIterable<StreamItem>> {
    const post = operation === 'SubscribeToTask' && this.#subscribeWithPost;
    let response = await this.#open(operation, request, options, post ? 'POST' : undefined);
    if (operation === 'SubscribeToTask' && !post && response.response.status === 405) {
      // The proto says GET, the prose POST: try the other one (see the module documentation).
      await readBodyText(response.response, response.request, this.#maxResponseBytes);
      response = await this.#open(operation, request, options, 'POST');
      if (response.response.status !== 405) this.#subscribeWithPost = true;
    }
    const { response: httpResponse, request: httpRequest } = response;
    if (httpResponse.ok && mediaTypeOf(httpResponse) === 'text/event-stream') {
      return this.#events(httpResponse, httpRequest);
    }
    const text = await readBodyText(httpResponse, httpRequest, this.#maxResponseBytes);
    if (!httpResponse.ok) throw this.#failure(httpResponse, text, httpRequest);
    throw new ProtocolViolationError(
      `${operation} must answer with text/event-stream; ${describeRequest(httpRequest)} answered ` +
        `${mediaTypeOf(httpResponse) || 'no content type'}: ${excerpt(text)}`,
    );
  }

  async #open(
    operation: OperationName,
    request: object,
    options: TransportCallOptions,
    method: RestRoute['method'] | undefined,
  ): Promise<{ response: Response; request: Request }> {
    const route = restRoute(operation, request, this.#url, method);
    const httpRequest = this.#request(route, options, STREAM_ACCEPT);
    return {
      response: await this.#send({ operation, request: httpRequest }),
      request: httpRequest,
    };
  }

  #request(route: RestRoute, options: TransportCallOptions, accept: string): Request {
    const headers = new Headers(options.headers);
    headers.set('accept', accept);
    if (route.body !== undefined) headers.set('content-type', A2A_JSON_MEDIA_TYPE);
    if (options.lastEventId !== undefined) headers.set('last-event-id', options.lastEventId);
    const init: RequestInit = { method: route.method, headers, signal: options.signal };
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
    return fromHttpErrorBody(response.status, body) ?? httpStatusError(response, text, request);
  }

  async *#events(response: Response, request: Request): AsyncGenerator<StreamItem> {
    const where = describeRequest(request);
    for await (const event of readSseEvents(response, request, this.#maxEventLength)) {
      yield this.#item(event, request, where);
    }
  }

  #item(event: SseEvent, request: Request, where: string): StreamItem {
    const value = parseJsonBody(event.data, request);
    if (event.event === 'error' || isErrorStatusBody(value)) {
      const status = isErrorStatusBody(value) ? value.error.code : undefined;
      const code = typeof status === 'number' ? status : 500;
      throw (
        fromHttpErrorBody(code, value) ??
        new ProtocolViolationError(
          `${where} sent an error event that is not an A2A error: ${excerpt(event.data)}`,
        )
      );
    }
    const payload = parseStreamPayload(value, where);
    return event.id === undefined || event.id === '' ? { payload } : { id: event.id, payload };
  }
}

/** Creates the HTTP+JSON transport of an interface (a {@link ClientTransportFactory}). */
export function createRestClientTransport(context: ClientTransportContext): ClientTransport {
  return new RestClientTransport(context);
}
