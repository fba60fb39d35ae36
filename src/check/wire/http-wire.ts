/**
 * The checker's HTTP: requests sent with undici exactly as built, answers kept exactly as they
 * came — status, every header, the body's bytes as text (an HTML error page, stray bytes before
 * an event stream) — without the client's reading, which would turn those into an exception or
 * hide them. Redirects are not followed: a redirect is an answer too. One connection pool per
 * run, with the client certificate and CA of `CheckOptions.tls`.
 */

import { Agent, request as undiciRequest, type Dispatcher } from 'undici';
import type { ClientTls } from '../../bindings/client/client-transport.js';
import { CheckConnectionError } from '../check-errors.js';

/** The largest body read from an answer that is not a stream; the rest is dropped. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** A request to send. */
export interface HttpProbeRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body?: string | undefined;
  readonly signal: AbortSignal;
}

/** What came back, before any reading. */
export interface HttpAnswerHead {
  readonly status: number;
  /** Every header as received, names in lower case. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  /** The media type, lower case, without parameters; `''` when there is none. */
  readonly mediaType: string;
  /** One header's value (several joined with `, `), or `undefined`. */
  header(name: string): string | undefined;
}

/** A whole answer. */
export interface HttpAnswer extends HttpAnswerHead {
  /** The body as UTF-8 text, cut at 4 MiB. */
  readonly text: string;
}

/** An answer whose body is read as it comes (an event stream). */
export interface HttpStreamAnswer extends HttpAnswerHead {
  readonly body: AsyncIterable<Uint8Array>;
  /** Closes the connection's body; safe to call more than once. */
  close(): void;
}

function headerPairs(headers: Record<string, string | string[] | undefined>): [string, string][] {
  const pairs: [string, string][] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value])
      pairs.push([name.toLowerCase(), item]);
  }
  return pairs;
}

function headOf(status: number, pairs: [string, string][]): HttpAnswerHead {
  const header = (name: string): string | undefined => {
    const values = pairs.filter(([key]) => key === name.toLowerCase()).map(([, value]) => value);
    return values.length === 0 ? undefined : values.join(', ');
  };
  const contentType = header('content-type') ?? '';
  const mediaType = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  return { status, headers: pairs, mediaType, header };
}

/** The system error code under a failure (`ECONNREFUSED`, `ENOTFOUND`...), if any. */
function systemCodeOf(error: unknown): string | undefined {
  for (let cause = error, depth = 0; cause !== undefined && depth < 4; depth++) {
    if (typeof cause !== 'object' || cause === null) return undefined;
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The HTTP side of one check run. */
export class HttpWire {
  readonly #dispatcher: Dispatcher;

  constructor(tls?: ClientTls) {
    this.#dispatcher =
      tls === undefined
        ? new Agent({ connections: 16 })
        : new Agent({
            connections: 16,
            connect: {
              ...(tls.ca === undefined ? {} : { ca: toPem(tls.ca) }),
              ...(tls.cert === undefined ? {} : { cert: toPem(tls.cert) }),
              ...(tls.key === undefined ? {} : { key: toPem(tls.key) }),
            },
          });
  }

  async #start(request: HttpProbeRequest): Promise<Dispatcher.ResponseData> {
    try {
      return await undiciRequest(request.url, {
        method: request.method,
        headers: request.headers.flatMap(([name, value]) => [name, value]),
        body: request.body ?? null,
        signal: request.signal,
        dispatcher: this.#dispatcher,
      });
    } catch (error) {
      if (request.signal.aborted) throw request.signal.reason as unknown;
      const code = systemCodeOf(error);
      throw new CheckConnectionError(
        `${request.method} ${request.url.split('?')[0] ?? ''} failed: ${code ?? (error instanceof Error ? error.message : String(error))}`,
        code,
        { cause: error },
      );
    }
  }

  /** Sends a request and reads its whole answer. */
  async send(request: HttpProbeRequest): Promise<HttpAnswer> {
    const response = await this.#start(request);
    const head = headOf(response.statusCode, headerPairs(response.headers));
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        if (size >= MAX_BODY_BYTES) continue;
        chunks.push(chunk);
        size += chunk.length;
      }
    } catch (error) {
      if (request.signal.aborted) throw request.signal.reason as unknown;
      throw new CheckConnectionError(
        `The connection was lost while reading the answer of ${request.method} ${request.url.split('?')[0] ?? ''}`,
        systemCodeOf(error),
        { cause: error },
      );
    }
    return { ...head, text: Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES).toString('utf8') };
  }

  /** Sends a request and hands its body out as it comes. */
  async open(request: HttpProbeRequest): Promise<HttpStreamAnswer> {
    const response = await this.#start(request);
    const head = headOf(response.statusCode, headerPairs(response.headers));
    const body = response.body;
    return {
      ...head,
      body: body as AsyncIterable<Uint8Array>,
      close: () => {
        if (body.destroyed) return;
        // Destroying the body aborts it with an error event; closing on purpose is no error.
        body.on('error', () => undefined);
        body.destroy();
      },
    };
  }

  /** Closes every connection. */
  async close(): Promise<void> {
    await this.#dispatcher.destroy();
  }
}

function toPem(value: string | Uint8Array): string | Buffer {
  return typeof value === 'string' ? value : Buffer.from(value);
}
