/**
 * The webhook the delivery check registers: a bare HTTP server that answers every POST 200 and
 * keeps what it received, by path (each check run registers a path of its own). It listens on the
 * `--receiver` address the agent can reach, or on 127.0.0.1 when the agent itself runs on
 * loopback. Bodies are kept up to 1 MiB; nothing is logged.
 */

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigurationError } from '../protocol/local-errors.js';

/** One notification as received. */
export interface ReceivedPush {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

const MAX_BODY = 1024 * 1024;

/** A running receiver. */
export class PushReceiver {
  readonly #server: Server;
  readonly #base: string;
  readonly #received = new Map<string, ReceivedPush[]>();
  readonly #waiters = new Set<() => void>();

  private constructor(server: Server, base: string) {
    this.#server = server;
    this.#base = base;
    server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      request.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_BODY) chunks.push(chunk);
      });
      request.on('end', () => {
        const path = (request.url ?? '/').split('?')[0] ?? '/';
        const list = this.#received.get(path) ?? [];
        if (request.method === 'POST') {
          list.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
          this.#received.set(path, list);
        }
        response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        for (const wake of [...this.#waiters]) wake();
      });
    });
  }

  /**
   * Starts a receiver on `address` (`host:port`, the address to advertise; it listens on that
   * port of every interface), or on a free port of 127.0.0.1.
   *
   * @throws ConfigurationError for an address that is not `host:port`.
   */
  static async start(address?: string): Promise<PushReceiver> {
    let host = '127.0.0.1';
    let port = 0;
    let listenHost = '127.0.0.1';
    if (address !== undefined) {
      const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(address);
      if (match === null || Number(match[2]) > 65535) {
        throw new ConfigurationError(
          `receiver ${JSON.stringify(address)} is not host:port, e.g. 203.0.113.7:8099`,
        );
      }
      host = match[1] as string;
      port = Number(match[2]);
      listenHost = host.startsWith('[') ? '::' : '0.0.0.0';
    }
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, listenHost, () => resolve());
    });
    const bound = (server.address() as AddressInfo).port;
    return new PushReceiver(server, `http://${host}:${bound}`);
  }

  /** The webhook URL of a path. */
  urlOf(path: string): string {
    return `${this.#base}${path}`;
  }

  /**
   * Waits, at most `timeoutMs`, for the first notification at `path` that `wanted` accepts (by
   * default the first one).
   */
  async waitFor(
    path: string,
    timeoutMs: number,
    wanted: (push: ReceivedPush) => boolean = () => true,
  ): Promise<ReceivedPush | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = (this.#received.get(path) ?? []).find(wanted);
      if (found !== undefined) return found;
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          this.#waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.#waiters.add(wake);
      });
    }
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
