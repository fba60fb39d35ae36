/**
 * The `node:http` adapter: the default way to serve agents. A thin layer over the node bridge
 * (`../node-bridge.ts`) that adds what a production server needs — timeouts that protect against
 * slow clients without cutting event streams, and a graceful shutdown.
 *
 * Timeouts: `headersTimeoutMs` and `requestTimeoutMs` bound how long a client may take to SEND
 * its request (Node applies them to receiving, not to the response), so an SSE stream that lasts
 * an hour is unaffected; `keepAliveTimeoutMs` closes idle keep-alive connections. No socket
 * inactivity timeout is set: idle streams are kept alive by heartbeats instead.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type * as NodeHttps from 'node:https';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { AgentInterface } from '../../protocol/generated/types.js';
import { createHttpCore, type HttpCore } from '../http-core.js';
import type { A2AHandlerOptions } from '../http-options.js';
import { NodeBridge } from '../node-bridge.js';

// node:https, and TLS with it, takes a few ms to load: only a server with `tls` pays for it.
const loadHttps = (): typeof NodeHttps =>
  createRequire(import.meta.url)('node:https') as typeof NodeHttps;

/** A `node:http` request listener. */
export type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

/** What the `node:http` server adds to the HTTP listener's options. */
export interface NodeServerOptions {
  /** Time allowed to receive the request headers. Default 10 s. */
  readonly headersTimeoutMs?: number | undefined;
  /** Time allowed to receive the whole request (headers and body). Default 60 s. */
  readonly requestTimeoutMs?: number | undefined;
  /** How long an idle keep-alive connection stays open. Default 65 s (above common proxy idle timeouts). */
  readonly keepAliveTimeoutMs?: number | undefined;
  /** Serve HTTPS instead of HTTP (spec 7.1: production deployments MUST use TLS). */
  readonly tls?: A2ATlsOptions | undefined;
}

/** Options of {@link createNodeServer}. */
export interface A2ANodeServerOptions extends A2AHandlerOptions, NodeServerOptions {}

/** The server's TLS material, PEM-encoded. */
export interface A2ATlsOptions {
  readonly cert: string | Buffer;
  readonly key: string | Buffer;
  /**
   * CAs whose client certificates the server trusts. Given, the server asks every client for a
   * certificate and reports a verified one to the identity hook (mutual TLS); a client without
   * one still connects, so that other authentication methods keep working.
   */
  readonly ca?: string | Buffer | undefined;
}

/** Options of {@link A2ANodeServer.shutdown}. */
export interface ShutdownOptions {
  /** How long in-flight calls and streams may take to finish before being cut. Default 10 s. */
  readonly deadlineMs?: number | undefined;
}

/** A server for A2A agents on `node:http`. */
export interface A2ANodeServer {
  /** The underlying server, e.g. to attach to an existing lifecycle. */
  readonly server: Server;
  /**
   * Starts listening; resolves with the bound address and a base URL usable by clients. Defaults:
   * port 0 (any free port) and host `127.0.0.1` (loopback only; pass `0.0.0.0` or `::` to accept
   * remote clients).
   *
   * `backlog` is the queue of connections the kernel holds until the server accepts them;
   * default 4096 (capped by the kernel's `net.core.somaxconn`). Node's default of 511 overflows
   * when a thousand clients connect at once, and every connection refused that way retries its
   * SYN a full second later.
   */
  listen(options?: {
    port?: number | undefined;
    host?: string | undefined;
    backlog?: number | undefined;
  }): Promise<{ port: number; host: string; url: string }>;
  /**
   * Graceful shutdown: stops accepting connections, lets in-flight calls and streams finish up to
   * the deadline (each agent's handler is shut down the same way), then closes whatever is left.
   * Idempotent: later calls return the same promise.
   */
  shutdown(options?: ShutdownOptions): Promise<void>;
  /**
   * The interfaces the card of the agent mounted at `path` lists, under `publicUrl` or else the
   * URL the server listens at (for a binding served elsewhere, e.g. gRPC's extended cards).
   */
  interfacesOf(path: string): AgentInterface[];
}

const DEFAULT_DEADLINE_MS = 10_000;
const DEFAULT_BACKLOG = 4096;

/** Time given to responses to complete once their work was cancelled. */
const GRACE_MS = 1_000;

/** Whether `promise` settles within `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A listener for an existing `node:http` (or `node:https`) server.
 *
 * @throws ConfigurationError for invalid options or an invalid agent card.
 */
export function toNodeListener(options: A2AHandlerOptions): NodeListener {
  const bridge = new NodeBridge(createHttpCore(options));
  return (req, res) => bridge.serve(req, res);
}

/**
 * Creates a server for `options.agents`; call `listen()` to start it.
 *
 * @throws ConfigurationError for invalid options or an invalid agent card.
 */
export function createNodeServer(options: A2ANodeServerOptions): A2ANodeServer {
  return serveOverNode(createHttpCore(options), options);
}

/** The `node:http` server of an HTTP listener (`createA2AServer` makes it over a shared core). */
export function serveOverNode(core: HttpCore, options: NodeServerOptions): A2ANodeServer {
  const bridge = new NodeBridge(core);
  const requestTimeout = options.requestTimeoutMs ?? 60_000;
  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  const serverOptions = {
    // Node refuses a headers timeout longer than a (non-zero) request timeout.
    headersTimeout: requestTimeout > 0 ? Math.min(headersTimeout, requestTimeout) : headersTimeout,
    requestTimeout,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 65_000,
  };
  const listener = (req: IncomingMessage, res: ServerResponse): void => bridge.serve(req, res);
  const tls = options.tls;
  const server: Server =
    tls === undefined
      ? createServer(serverOptions, listener)
      : loadHttps().createServer(
          {
            ...serverOptions,
            cert: tls.cert,
            key: tls.key,
            minVersion: 'TLSv1.2',
            ...(tls.ca === undefined
              ? {}
              : { ca: tls.ca, requestCert: true, rejectUnauthorized: false }),
          },
          listener,
        );
  const scheme = tls === undefined ? 'http' : 'https';
  let shuttingDown: Promise<void> | undefined;
  let listenUrl = '';

  async function shutdown(deadlineMs: number): Promise<void> {
    bridge.drain();
    const closed = server.listening
      ? new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())))
      : Promise.resolve();
    server.closeIdleConnections();
    // The handlers let work finish, then cancel what is left at the deadline; the responses of
    // cancelled calls and streams complete shortly after, within the grace period.
    const agents = core.shutdownAgents({ deadlineMs }).then(
      () => undefined,
      (error: unknown) => ({ error }),
    );
    await within(Promise.all([agents, bridge.whenIdle(deadlineMs)]), deadlineMs);
    await bridge.whenIdle(GRACE_MS);
    server.closeAllConnections();
    await closed;
    // Agent code that ignores its abort signal must not keep the process from exiting.
    if (!(await within(agents, GRACE_MS))) {
      core.logger.warn(
        { deadlineMs },
        'agent executions did not stop within the shutdown deadline; they were abandoned',
      );
      return;
    }
    const outcome = await agents;
    if (outcome !== undefined) throw outcome.error;
  }

  return {
    server,
    listen({ port = 0, host = '127.0.0.1', backlog = DEFAULT_BACKLOG } = {}) {
      return new Promise((resolve, reject) => {
        const onError = (error: Error): void => reject(error);
        server.once('error', onError);
        server.listen({ port, host, backlog }, () => {
          server.off('error', onError);
          const address = server.address() as AddressInfo;
          const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          const reachable = shown === '0.0.0.0' ? '127.0.0.1' : shown === '[::]' ? '[::1]' : shown;
          listenUrl = `${scheme}://${reachable}:${address.port}`;
          // Listeners without URLs of their own list the HTTP interfaces under it.
          core.core.httpBaseUrl ??= listenUrl;
          resolve({ port: address.port, host: address.address, url: listenUrl });
        });
      });
    },
    shutdown(shutdownOptions = {}) {
      shuttingDown ??= shutdown(shutdownOptions.deadlineMs ?? DEFAULT_DEADLINE_MS);
      return shuttingDown;
    },
    interfacesOf: (path) => core.interfacesOf(path, listenUrl),
  };
}
