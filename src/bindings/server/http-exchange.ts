/**
 * The transport-neutral HTTP exchange the server works on, below every binding and every adapter:
 * the web-standard fetch handler, the `node:http` adapter and the Express adapter each bridge their
 * own request to an {@link HttpRequest} and write the {@link HttpResponse} they get back, and a
 * server binding (JSON-RPC, HTTP+JSON) answers with one directly. Types only, so that it sits below
 * the bindings without pulling anything in.
 *
 * Why not web `Request`/`Response` everywhere: on Node 20 constructing them costs several
 * microseconds each (undici), which a JSON-RPC round trip would pay twice. The server therefore
 * needs only what it reads — method, path, query, a header lookup, a body reader with a byte limit,
 * an abort signal, who is on the other end — and answers with a plain description: status, headers,
 * and a string/bytes body or a source that pushes SSE frames. The fetch bridge turns that into a
 * `Response`; the node bridge into `writeHead` + `end`, or one `write` per SSE frame.
 *
 * Kept structural so the core stays free of `node:` imports.
 */

import { TOO_LONG as BODY_TOO_LARGE } from '../../protocol/bounded-read.js';

/**
 * Returned by {@link HttpRequest.readBody} when the body exceeds the limit: the web reader's own
 * marker, so that the fetch bridge passes that reader's answer through.
 */
export { BODY_TOO_LARGE };

/**
 * Read access to request headers (or gRPC metadata) by lower-case name. The web `Headers` class
 * satisfies it, so a fetch handler passes `request.headers` as is; other transports wrap their own
 * header storage.
 */
export interface HeaderReader {
  get(name: string): string | null | undefined;
}

/** The TLS client certificate of a connection, as far as an authenticator needs it. */
export interface PeerCertificate {
  /** Subject fields (`CN`, `O`, ...), as Node's `getPeerCertificate()` reports them. */
  readonly subject: Readonly<Record<string, string | readonly string[]>>;
  readonly issuer: Readonly<Record<string, string | readonly string[]>>;
  /** SHA-256 fingerprint, colon-separated hex. */
  readonly fingerprint256: string;
  readonly serialNumber: string;
  readonly validFrom: string;
  readonly validTo: string;
}

/** Who is on the other end of the connection; what every binding can say about its caller. */
export interface PeerIdentity {
  /** The remote IP address, when the transport knows it. */
  readonly address: string | undefined;
  /**
   * The client certificate, when the connection is TLS and the client presented one that the
   * server's trusted CAs verified; `undefined` otherwise.
   */
  readonly certificate: PeerCertificate | undefined;
}

/** A request as the server sees it. Header names passed to `get` are lower-case. */
export interface HttpRequest extends HeaderReader {
  /** Upper-case HTTP method. */
  readonly method: string;
  /** The path, without query, relative to where the handler is mounted; still percent-encoded. */
  readonly path: string;
  /** The raw query string without `?` (`''` when there is none). */
  readonly query: string;
  /** The scheme the client used to reach this server (before any proxy headers). */
  readonly scheme: 'http' | 'https';
  /** The path prefix the handler is mounted under (Express `baseUrl`), `''` otherwise. */
  readonly mountPath: string;
  /** The local port of the connection, for absolute URLs when the request has no usable Host. */
  readonly localPort: number | undefined;
  /** The other end of the connection. Transports may compute it on first access. */
  readonly peer: PeerIdentity;
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

/** A response as the server describes it. */
export interface HttpResponse {
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
