/**
 * What the JSON-RPC and HTTP+JSON probes share: the headers of a call (version, credentials,
 * the caller's own), sending with the request's time limit, the report's exchange, and an event
 * stream read from SSE with each event decoded by the binding.
 */

import type { SseEvent } from '../../protocol/sse-decoder.js';
import { VERSION_HEADER } from '../../protocol/version.js';
import { CheckConnectionError } from '../check-errors.js';
import type { HttpAnswer, HttpStreamAnswer } from '../wire/http-wire.js';
import { SseReader } from '../wire/sse-reader.js';
import { wireRequest, wireResponse, type Exchange } from '../wire/wire-exchange.js';
import type { WireResponse } from '../check-types.js';
import type {
  CallSettings,
  EventStream,
  ProbeTarget,
  StreamEnd,
  StreamEventRead,
} from './probe.js';
import { isRunAbort, requestSignal, type ProbeEnvironment } from './probe-environment.js';
import { pause, RATE_LIMIT_RETRIES, retryAfterMs } from './rate-limit.js';

/** A request as an HTTP probe sends it. */
export interface HttpCall {
  readonly method: string;
  readonly url: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body?: string | undefined;
}

/** The headers of a call: the binding's own, the version, credentials, the caller's. */
export function callHeaders(
  environment: ProbeEnvironment,
  target: ProbeTarget,
  settings: CallSettings,
  own: ReadonlyArray<readonly [string, string]>,
): (readonly [string, string])[] {
  const headers: (readonly [string, string])[] = [...own];
  const version = settings.version === undefined ? defaultVersion(target) : settings.version;
  if (version !== null) headers.push([VERSION_HEADER, version]);
  if (settings.credentials !== false) headers.push(...environment.credentials.headers);
  headers.push(...environment.headers);
  for (const [name, value] of Object.entries(settings.headers ?? {})) headers.push([name, value]);
  if (settings.lastEventId !== undefined) headers.push(['Last-Event-ID', settings.lastEventId]);
  return headers;
}

/** The version header a probe sends by default: 1.0's, none for 0.3 (0.3 clients send none). */
function defaultVersion(target: ProbeTarget): string | null {
  return target.version === '1.0' ? '1.0' : null;
}

/** The URL of a call, with an API key placed in the query when the card says so. */
export function callUrl(
  environment: ProbeEnvironment,
  url: string,
  settings: CallSettings,
): string {
  const query = environment.credentials.query;
  if (query === undefined || settings.credentials === false) return url;
  const parsed = new URL(url);
  parsed.searchParams.set(query[0], query[1]);
  return parsed.toString();
}

/** The response part of an exchange. */
export function httpResponseOf(
  environment: ProbeEnvironment,
  answer: Pick<HttpAnswer, 'status' | 'headers'>,
  body: string | undefined,
): WireResponse {
  return wireResponse(environment.secrets, {
    status: String(answer.status),
    headers: answer.headers,
    body,
  });
}

/** A request and its answer; `failure` when none came. */
export type Sent<A> =
  | { readonly answer: A; readonly exchange: Exchange }
  | { readonly failure: string; readonly exchange: Exchange };

function failureOf(environment: ProbeEnvironment, error: unknown, timeoutMs: number): string {
  if (isRunAbort(environment)) throw environment.signal.reason as Error;
  if (error instanceof CheckConnectionError) return error.message;
  if (error instanceof DOMException && error.name === 'TimeoutError') {
    return `no answer within ${timeoutMs} ms`;
  }
  throw error;
}

/** Sends a call and reads its whole answer. */
export async function sendHttp(
  environment: ProbeEnvironment,
  call: HttpCall,
  timeoutMs = environment.timeoutMs,
): Promise<Sent<HttpAnswer>> {
  const request = wireRequest(environment.secrets, call);
  try {
    for (let attempt = 0; ; attempt++) {
      const answer = await environment.http.send({
        ...call,
        signal: requestSignal(environment, timeoutMs),
      });
      if (answer.status === 429 && attempt < RATE_LIMIT_RETRIES) {
        await pause(retryAfterMs(answer.header('retry-after')), environment.signal);
        continue;
      }
      return {
        answer,
        exchange: { request, response: httpResponseOf(environment, answer, answer.text) },
      };
    }
  } catch (error) {
    return { failure: failureOf(environment, error, timeoutMs), exchange: { request } };
  }
}

/** Sends a call whose answer may be a stream; the body is left to read. */
export async function openHttp(
  environment: ProbeEnvironment,
  call: HttpCall,
  signal: AbortSignal,
): Promise<Sent<HttpStreamAnswer>> {
  const request = wireRequest(environment.secrets, call);
  try {
    for (let attempt = 0; ; attempt++) {
      const answer = await environment.http.open({ ...call, signal });
      if (answer.status === 429 && attempt < RATE_LIMIT_RETRIES) {
        answer.close();
        await pause(retryAfterMs(answer.header('retry-after')), environment.signal);
        continue;
      }
      return {
        answer,
        exchange: { request, response: httpResponseOf(environment, answer, undefined) },
      };
    }
  } catch (error) {
    return { failure: failureOf(environment, error, environment.timeoutMs), exchange: { request } };
  }
}

/** Reads the rest of a stream answer's body as text (an error answered instead of a stream). */
export async function readRest(answer: HttpStreamAnswer): Promise<string> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of answer.body) chunks.push(Buffer.from(chunk));
  } catch {
    // What was read is the answer; a reset after it changes nothing of what the checks see.
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** An SSE stream whose events the binding decodes. */
export class SseEventStream implements EventStream {
  readonly #reader: SseReader;
  readonly #answer: HttpStreamAnswer;
  readonly #abort: AbortController;
  readonly #decode: (event: SseEvent) => StreamEventRead | StreamEnd;
  #pending: Promise<StreamEventRead | StreamEnd> | undefined;
  #ended: StreamEnd | undefined;

  constructor(
    answer: HttpStreamAnswer,
    abort: AbortController,
    decode: (event: SseEvent) => StreamEventRead | StreamEnd,
  ) {
    this.#answer = answer;
    this.#abort = abort;
    this.#decode = decode;
    this.#reader = new SseReader(answer.body);
  }

  get strayLines(): readonly string[] {
    return this.#reader.strayLines;
  }

  /** The start of the stream as received. */
  get raw(): string {
    return this.#reader.raw;
  }

  async #read(): Promise<StreamEventRead | StreamEnd> {
    try {
      const event = await this.#reader.next();
      if (event === undefined) return { end: 'closed' };
      return this.#decode(event);
    } catch (error) {
      if (this.#abort.signal.aborted) return { end: 'stopped' };
      return {
        end: 'broken',
        problem: `the stream failed: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
  }

  async next(timeoutMs: number): Promise<StreamEventRead | StreamEnd> {
    if (this.#ended !== undefined) return this.#ended;
    this.#pending ??= this.#read();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const read = await Promise.race([this.#pending, timeout]);
    clearTimeout(timer);
    if (read === 'timeout') return { end: 'timeout' };
    this.#pending = undefined;
    if ('end' in read) this.#ended = read;
    return read;
  }

  close(): void {
    this.#ended ??= { end: 'stopped' };
    this.#abort.abort();
    this.#answer.close();
  }
}
