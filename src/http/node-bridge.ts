/**
 * The bridge between `node:http` and the HTTP core, shared by the node and Express adapters. It
 * reads `IncomingMessage` fields directly (no URL parsing, no web `Request`) and writes the
 * core's response with one `writeHead` + `end`, or — for SSE — one `write` per frame the source
 * pushes, pausing the source while the socket drains. That pause is what lets the runtime bound
 * memory for slow consumers. No flush calls or timers per event: a heartbeat interval per stream
 * notes activity with a field write.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import {
  BODY_TOO_LARGE,
  type HttpRequest,
  type HttpResponse,
  type PeerIdentity,
  type SseSource,
} from '../bindings/server/http-exchange.js';
import type { Logger } from '../runtime/logger.js';
import type { HttpCore } from './http-core.js';
import { peerOf } from './peer-identity.js';
import { SSE_HEARTBEAT, SseHeartbeat } from './sse-heartbeat.js';

/** Request-specific inputs an adapter may supply. */
export interface NodeServeOptions {
  /** The path prefix the handler is mounted under (Express `req.baseUrl`). */
  readonly mountPath?: string | undefined;
  /** A body a framework already consumed from the stream (Express body parsers). */
  readonly parsedBody?: string | Uint8Array | undefined;
}

class NodeCoreRequest implements HttpRequest {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly mountPath: string;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  readonly #parsedBody: string | Uint8Array | undefined;
  #controller: AbortController | undefined;

  constructor(req: IncomingMessage, res: ServerResponse, options: NodeServeOptions) {
    this.#req = req;
    this.#res = res;
    this.#parsedBody = options.parsedBody;
    this.method = req.method ?? 'GET';
    this.mountPath = options.mountPath ?? '';
    let url = req.url ?? '/';
    // An absolute-form target (`POST http://host/a2a`), as sent to proxies.
    if (url.charCodeAt(0) !== 0x2f) url = URL.canParse(url) ? new URL(url).pathname : url;
    const q = url.indexOf('?');
    this.path = q === -1 ? url : url.slice(0, q);
    this.query = q === -1 ? '' : url.slice(q + 1);
  }

  get scheme(): 'http' | 'https' {
    return (this.#req.socket as Partial<TLSSocket>).encrypted === true ? 'https' : 'http';
  }

  /** Read from the socket on first access: only an authenticator that needs it asks. */
  get peer(): PeerIdentity {
    return peerOf(this.#req.socket);
  }

  get localPort(): number | undefined {
    return this.#req.socket.localPort;
  }

  get(name: string): string | undefined {
    const value = this.#req.headers[name];
    return typeof value === 'string' || value === undefined ? value : value.join(', ');
  }

  /** Created on first access: most calls never look at it. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      const controller = new AbortController();
      this.#controller = controller;
      const res = this.#res;
      if (res.closed) {
        if (!res.writableFinished) controller.abort();
      } else {
        res.once('close', () => {
          if (!res.writableFinished) controller.abort();
        });
      }
    }
    return this.#controller.signal;
  }

  readBody(limit: number): Promise<string | Uint8Array | typeof BODY_TOO_LARGE> {
    if (this.#parsedBody !== undefined) return Promise.resolve(this.#parsedBody);
    const req = this.#req;
    return new Promise((resolve, reject) => {
      // One listener per event and no cleanup: they live and die with this request. Aborted
      // uploads surface as 'error' (ECONNRESET) on Node 20.
      let first: Buffer | undefined;
      let chunks: Buffer[] | undefined;
      let size = 0;
      let done = false;
      req.on('data', (chunk: Buffer): void => {
        if (done) return;
        size += chunk.length;
        if (size > limit) {
          done = true;
          // Stop reading: the rest is never buffered; the response closes the connection.
          req.pause();
          resolve(BODY_TOO_LARGE);
          return;
        }
        if (first === undefined) first = chunk;
        else (chunks ??= [first]).push(chunk);
      });
      req.on('end', (): void => {
        if (done) return;
        done = true;
        const body = chunks === undefined ? first : Buffer.concat(chunks, size);
        resolve(body === undefined ? '' : body.toString('utf8'));
      });
      req.on('error', (error: Error): void => {
        if (done) return;
        done = true;
        reject(error);
      });
      req.on('close', (): void => {
        if (done) return;
        done = true;
        reject(new Error('The client aborted the request body'));
      });
    });
  }
}

/**
 * Writes the frames a source pushes, one `write` each. When the socket's buffer is full the source
 * is paused until `drain`, so a slow client holds at most the runtime's bounded queue.
 */
function pipeSse(res: ServerResponse, sse: SseSource, heartbeatMs: number): void {
  let closed = false;
  const heartbeat = new SseHeartbeat(heartbeatMs, () => {
    if (!closed) res.write(SSE_HEARTBEAT);
  });
  const onDrain = (): void => sse.resume();
  const release = (): void => {
    heartbeat.stop();
    res.off('drain', onDrain);
    res.off('close', onClose);
  };
  const onClose = (): void => {
    closed = true;
    release();
    sse.stop();
  };
  res.on('drain', onDrain);
  res.once('close', onClose);
  let wrote = false;
  sse.start({
    write(frame) {
      if (closed) return false;
      wrote = true;
      heartbeat.touch();
      return res.write(frame);
    },
    end() {
      if (closed) return;
      closed = true;
      release();
      res.end();
    },
  });
  // The headers go out with the first frame when the stream had one at once (one write instead
  // of two); otherwise now, so that the client sees the stream open before its first event.
  if (!wrote && !closed) res.flushHeaders();
}

/** Serves requests from `node:http` with a core, and counts those in flight for shutdown. */
export class NodeBridge {
  readonly #core: HttpCore;
  readonly #logger: Logger;
  #inFlight = 0;
  #draining = false;
  #idle: (() => void) | undefined;

  constructor(core: HttpCore) {
    this.#core = core;
    this.#logger = core.logger;
  }

  /** Requests whose response has not finished (streams included). */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** From now on, responses ask the client to close the connection (graceful shutdown). */
  drain(): void {
    this.#draining = true;
  }

  /** Resolves when no request is in flight, or after `timeoutMs`. */
  whenIdle(timeoutMs: number): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      const previous = this.#idle;
      this.#idle = () => {
        previous?.();
        done();
      };
    });
  }

  readonly #onClose = (): void => {
    this.#inFlight--;
    if (this.#inFlight === 0 && this.#idle !== undefined) {
      const idle = this.#idle;
      this.#idle = undefined;
      idle();
    }
  };

  /** Serves one request. */
  serve(req: IncomingMessage, res: ServerResponse, options: NodeServeOptions = {}): void {
    this.#inFlight++;
    this.#core
      .handle(new NodeCoreRequest(req, res, options))
      .then((response) => this.#write(res, response))
      .catch((error: unknown) => {
        // The core answers its own errors; this is a failure to write (e.g. an invalid header).
        this.#logger.error({ err: error }, 'unexpected error while writing a response');
        if (!res.headersSent) res.writeHead(500, { 'content-length': '0' }).end();
        else res.destroy();
        this.#onClose();
      });
  }

  #write(res: ServerResponse, response: HttpResponse): void {
    const headers = response.headers;
    if (this.#draining || response.closeConnection === true) headers.connection = 'close';
    if (response.sse !== undefined) {
      headers.connection ??= 'keep-alive';
      res.writeHead(response.status, headers);
      // A stream is in flight until its connection closes (registered last: a throw above is
      // counted by `serve`).
      res.once('close', this.#onClose);
      pipeSse(res, response.sse, this.#core.heartbeatMs);
      return;
    }
    const body = response.body;
    if (body !== undefined) {
      headers['content-length'] = String(
        typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength,
      );
    }
    res.writeHead(response.status, headers);
    res.end(body);
    // Handed to the socket: nothing of this response is left for a shutdown to wait for.
    this.#onClose();
  }
}
