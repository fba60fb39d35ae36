/**
 * The web-standard entry point: `(Request) => Promise<Response>`, for any runtime or framework
 * that speaks fetch (Deno, Bun, Cloudflare Workers, Hono, Next.js route handlers...). It bridges
 * the web request to the transport-neutral core (`http-core.ts`) and the core's response back to
 * a `Response`; SSE becomes a `ReadableStream` the stream pushes frames into, paused while the
 * reader's queue is full, so the consumer's pace is the stream's backpressure. On Node, the
 * `node:http` adapter serves the same core without constructing web `Request`/`Response` objects.
 */

import type { HttpRequest, PeerIdentity, SseSource } from '../../bindings/server/http-exchange.js';
import { SSE_HEARTBEAT, SseHeartbeat } from '../sse-heartbeat.js';
import { createHttpCore, type HttpCore } from '../http-core.js';
import type { A2AHandlerOptions } from '../http-options.js';
import { readAtMost } from '../../protocol/bounded-read.js';

/** A fetch handler serving A2A agents. */
export type A2AFetchHandler = (request: Request) => Promise<Response>;

const encoder = new TextEncoder();
const HEARTBEAT_BYTES = encoder.encode(SSE_HEARTBEAT);

/** A fetch runtime does not say who is on the other end. */
const UNKNOWN_PEER: PeerIdentity = Object.freeze({ address: undefined, certificate: undefined });

function toCoreRequest(request: Request): HttpRequest {
  const url = new URL(request.url);
  const port = url.port === '' ? undefined : Number(url.port);
  return {
    method: request.method,
    path: url.pathname,
    query: url.search.slice(1),
    scheme: url.protocol === 'https:' ? 'https' : 'http',
    mountPath: '',
    localPort: port,
    peer: UNKNOWN_PEER,
    // A fetch runtime puts the authority in the URL; a `Request` built in code has no Host.
    get: (name) => request.headers.get(name) ?? (name === 'host' ? url.host : null),
    readBody: (limit) => readAtMost(request.body, limit),
    signal: request.signal,
  };
}

function sseBody(
  sse: SseSource,
  heartbeatMs: number,
  signal: AbortSignal,
): ReadableStream<Uint8Array> {
  let closed = false;
  let heartbeat: SseHeartbeat | undefined;
  const close = (): void => {
    closed = true;
    heartbeat?.stop();
    signal.removeEventListener('abort', stop);
  };
  const stop = (): void => {
    if (closed) return;
    close();
    sse.stop();
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        heartbeat = new SseHeartbeat(heartbeatMs, () => {
          if (!closed) controller.enqueue(HEARTBEAT_BYTES);
        });
        if (signal.aborted) {
          stop();
          return;
        }
        signal.addEventListener('abort', stop, { once: true });
        sse.start({
          write(frame) {
            if (closed) return false;
            heartbeat?.touch();
            controller.enqueue(encoder.encode(frame));
            return (controller.desiredSize ?? 0) > 0;
          },
          end() {
            if (closed) return;
            close();
            controller.close();
          },
        });
      },
      // The reader wants more: the source writes again (a no-op unless it was paused).
      pull() {
        sse.resume();
      },
      cancel: stop,
    },
    { highWaterMark: 1 },
  );
}

/** Bridges a core to fetch. Exported for adapters that already hold a core. */
export function toFetchHandler(core: HttpCore): A2AFetchHandler {
  const { heartbeatMs } = core;
  return async (request) => {
    const response = await core.handle(toCoreRequest(request));
    const init = { status: response.status, headers: response.headers };
    if (response.sse !== undefined) {
      return new Response(sseBody(response.sse, heartbeatMs, request.signal), init);
    }
    return new Response(response.body ?? null, init);
  };
}

/**
 * Creates the fetch handler serving `options.agents`.
 *
 * @throws ConfigurationError for invalid options or an invalid agent card.
 */
export function createA2AHandler(options: A2AHandlerOptions): A2AFetchHandler {
  return toFetchHandler(createHttpCore(options));
}
