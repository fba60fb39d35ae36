/**
 * The transport-neutral HTTP exchange that the A2A HTTP core works on. Every way of serving —
 * the web-standard fetch handler, the `node:http` adapter, the Express adapter — bridges its own
 * request to an {@link HttpCoreRequest} and writes the {@link HttpCoreResponse} it gets back.
 *
 * Why not web `Request`/`Response` everywhere: on Node 20 constructing them costs several
 * microseconds each (undici), which the benchmark of a JSON-RPC round trip would pay twice. The
 * core therefore needs only what it reads — method, path, query, a header lookup, a body reader
 * with a byte limit, an abort signal — and answers with a plain description: status, headers, and
 * a string/bytes body or a source that pushes SSE frames. The fetch bridge turns that into a
 * `Response`; the node bridge into `writeHead` + `end`, or one `write` per SSE frame.
 *
 * Kept structural so the core stays free of `node:` imports.
 */

import type { HeaderReader } from '../bindings/jsonrpc/service-parameters.js';
import { TOO_LONG as BODY_TOO_LARGE } from '../protocol/bounded-read.js';

/**
 * Returned by {@link HttpCoreRequest.readBody} when the body exceeds the limit: the web reader's
 * own marker, so that the fetch bridge passes that reader's answer through.
 */
export { BODY_TOO_LARGE };

/** A request as the core sees it. Header names passed to `get` are lower-case. */
export interface HttpCoreRequest extends HeaderReader {
  /** Upper-case HTTP method. */
  readonly method: string;
  /** The path, without query, relative to where the handler is mounted. */
  readonly path: string;
  /** The raw query string without `?` (`''` when there is none). */
  readonly query: string;
  /** The scheme the client used to reach this server (before any proxy headers). */
  readonly scheme: 'http' | 'https';
  /** The path prefix the handler is mounted under (Express `baseUrl`), `''` otherwise. */
  readonly mountPath: string;
  /** The local port of the connection, for absolute URLs when the request has no usable Host. */
  readonly localPort: number | undefined;
  /**
   * Reads the whole body, or stops at `limit` bytes (without buffering the rest) and resolves to
   * {@link BODY_TOO_LARGE}. Rejects when the client aborts the upload.
   */
  readBody(limit: number): Promise<string | Uint8Array | typeof BODY_TOO_LARGE>;
  /** Fires when the client disconnects. Transports may create it on first access. */
  readonly signal: AbortSignal;
}

/** Where an {@link SseSource} writes its frames. */
export interface SseSink {
  /**
   * Writes one encoded frame. Returns `false` when the connection cannot take more for now (its
   * buffer is full): the source then holds its frames until {@link SseSource.resume}. That is the
   * back-pressure the runtime relies on to bound memory for slow clients.
   */
  write(frame: string): boolean;
  /** No frame will follow: close the response. Called once, also after `stop()`. */
  end(): void;
}

/**
 * A source of encoded SSE frames that pushes them as they come: an open stream waiting for its
 * next event holds no pending promise (see `runtime/event-push.ts` for why that matters).
 */
export interface SseSource {
  /** Starts writing frames to `sink`; called once. An error ends in an error frame, not a throw. */
  start(sink: SseSink): void;
  /** Writes again after the sink answered `false`. */
  resume(): void;
  /** The client went away: release the stream at once; the task is not affected. */
  stop(): void;
}

/** A response as the core describes it. */
export interface HttpCoreResponse {
  readonly status: number;
  /**
   * Lower-case header names. The object belongs to this response: a bridge may add headers
   * (`content-length`, `connection`) to it.
   */
  readonly headers: Record<string, string>;
  /** The body; absent for 204, 304, HEAD and SSE responses. */
  readonly body?: string | Uint8Array | undefined;
  /** An event stream to write frame by frame (`text/event-stream`). */
  readonly sse?: SseSource | undefined;
  /**
   * Close the connection after the response: the request body was left unread (413), so the
   * connection cannot carry another request.
   */
  readonly closeConnection?: boolean | undefined;
}

/** The comment frame sent on an idle stream so that proxies keep it open. */
export const SSE_HEARTBEAT = ':\n\n';

/**
 * Sends {@link SSE_HEARTBEAT} through `send` every `intervalMs` while a stream is idle. Marking
 * activity costs one field write per event (no timer reset on the hot path), so the first
 * heartbeat after an event comes between one and two intervals later; each further one follows
 * one interval after the previous. `intervalMs <= 0` disables heartbeats.
 */
export class SseHeartbeat {
  #active = false;
  readonly #timer: ReturnType<typeof setInterval> | undefined;

  constructor(intervalMs: number, send: () => void) {
    if (intervalMs <= 0) return;
    this.#timer = setInterval(() => {
      if (this.#active) this.#active = false;
      else send();
    }, intervalMs);
    // A heartbeat must not keep a process alive on its own.
    (this.#timer as { unref?: () => void }).unref?.();
  }

  /** Records that a frame was just written. */
  touch(): void {
    this.#active = true;
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
  }
}
