/**
 * HTTP reading shared by the client halves of the HTTP-based bindings: bodies read with the
 * failure modes told apart (a lost connection is a `ConnectionError`, an abort keeps its reason so
 * that the client can tell a timeout from the caller's cancel), JSON parsed or refused as a
 * protocol violation, event streams decoded incrementally without `node:` APIs.
 */

import { SseDecoder, SseEventTooLargeError, type SseEvent } from '../../protocol/sse-decoder.js';
import { integerOption } from '../../protocol/integer-option.js';
import { readAtMost, TOO_LONG } from '../../protocol/bounded-read.js';
import { ConnectionError, HttpStatusError, ProtocolViolationError } from './transport-errors.js';

/** The longest body excerpt kept in error messages. */
const BODY_EXCERPT = 500;

/**
 * A URL for messages, without its query: the query may carry a secret (an API key placed there
 * by the card's security scheme), and secrets never appear in errors.
 */
export function describeUrl(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** `POST http://host/path`, for messages (without the query, see {@link describeUrl}). */
export function describeRequest(request: Request): string {
  return `${request.method} ${describeUrl(request.url)}`;
}

/** The media type of a response, lower case, without parameters; `''` when absent. */
export function mediaTypeOf(response: Response): string {
  const value = response.headers.get('content-type') ?? '';
  const semicolon = value.indexOf(';');
  return (semicolon === -1 ? value : value.slice(0, semicolon)).trim().toLowerCase();
}

/** JSON media types: `application/json`, `application/a2a+json` and any other `+json`. */
export function isJsonMediaType(mediaType: string): boolean {
  return mediaType === 'application/json' || /^application\/[\w.+-]+\+json$/.test(mediaType);
}

/** The error to throw when reading a body failed: the abort reason, or a lost connection. */
function readFailure(error: unknown, request: Request): unknown {
  if (request.signal.aborted) return request.signal.reason as unknown;
  return new ConnectionError(
    `The connection was lost while reading the response of ${describeRequest(request)}`,
    { cause: error },
  );
}

/**
 * The default of `ClientOptions.maxResponseBytes`: the largest body of a response that is not a
 * stream (a JSON-RPC or REST answer, an agent card) the client reads, 32 MiB.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/**
 * Checks a `maxResponseBytes` option: a positive safe integer; `undefined` gives
 * {@link DEFAULT_MAX_RESPONSE_BYTES}.
 */
export function maxResponseBytesOf(value: number | undefined): number {
  return integerOption('maxResponseBytes', value ?? DEFAULT_MAX_RESPONSE_BYTES, 1, 'bytes');
}

/**
 * Reads a whole body as text (UTF-8). A body longer than `maxBytes` is not read to its end: the
 * connection is closed and a `ProtocolViolationError` thrown, so that an agent cannot make the
 * client buffer without end.
 */
export async function readBodyText(
  response: Response,
  request: Request,
  maxBytes: number = DEFAULT_MAX_RESPONSE_BYTES,
): Promise<string> {
  let bytes: Uint8Array | typeof TOO_LONG;
  try {
    bytes = await readAtMost(response.body as ReadableStream<Uint8Array> | null, maxBytes);
  } catch (error) {
    throw readFailure(error, request);
  }
  if (bytes === TOO_LONG) {
    throw new ProtocolViolationError(
      `The response of ${describeRequest(request)} is longer than ${maxBytes} bytes (maxResponseBytes); it was not read to its end`,
      [],
    );
  }
  return utf8.decode(bytes);
}

const utf8 = new TextDecoder();

/** Parses a body that must be JSON. */
export function parseJsonBody(text: string, request: Request): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ProtocolViolationError(
      `The response of ${describeRequest(request)} is not valid JSON: ${excerpt(text)}`,
      [],
      { cause: error },
    );
  }
}

/** The start of a text, on one line, for messages. */
export function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat === '') return '(empty body)';
  return flat.length > BODY_EXCERPT ? `${flat.slice(0, BODY_EXCERPT)}…` : flat;
}

function statusHint(status: number): string {
  switch (status) {
    case 401:
    case 403:
      return 'check the credentials (the auth option) the agent card asks for';
    case 404:
      return 'check the agent URL, or fetch its card again';
    case 405:
      return 'the URL does not serve this operation; check the interface URL in the card';
    case 429:
    case 503:
      return 'the agent is busy; retry later';
    default:
      return status >= 500 ? 'the agent or a proxy failed; retry later' : 'see the body';
  }
}

/** The error for a failed HTTP response that carries no A2A error. */
export function httpStatusError(
  response: Response,
  body: string,
  request: Request,
): HttpStatusError {
  const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  const message =
    `HTTP ${status} from ${describeRequest(request)}: ${statusHint(response.status)}. ` +
    `Body: ${excerpt(body)}`;
  const retryAfter = response.headers.get('retry-after') ?? undefined;
  return new HttpStatusError(response.status, message, excerpt(body), retryAfter);
}

/**
 * Decodes a `text/event-stream` body into events. Reads with a reader (not async iteration of
 * the stream, which older browsers lack); stopping early cancels the body, which closes the
 * connection. A line or an event's data longer than the decoder's limit ends the stream with a
 * `ProtocolViolationError`, after the events before it.
 */
export async function* readSseEvents(
  response: Response,
  request: Request,
  maxEventLength?: number,
): AsyncGenerator<SseEvent, void, undefined> {
  const body = response.body;
  if (body === null) return;
  const reader = (body as ReadableStream<Uint8Array>).getReader();
  const decoder = new SseDecoder(maxEventLength === undefined ? {} : { maxEventLength });
  let finished = false;
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        finished = true;
        throw readFailure(error, request);
      }
      if (chunk.done) {
        finished = true;
        yield* decoder.end();
        return;
      }
      let events: SseEvent[];
      try {
        events = decoder.push(chunk.value);
      } catch (error) {
        if (!(error instanceof SseEventTooLargeError)) throw error;
        yield* error.events;
        throw new ProtocolViolationError(
          `The agent at ${describeUrl(request.url)} sent an event stream with a line or an event of more than ${error.maxEventLength} characters; the stream was closed`,
          [],
          { cause: error },
        );
      }
      yield* events;
    }
  } finally {
    // An aborted request already tore the connection down; cancelling its body would only reject.
    if (!finished && !request.signal.aborted) await reader.cancel();
  }
}
