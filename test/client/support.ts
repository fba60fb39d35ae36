/**
 * Fixtures of the client tests, all on real loopback sockets: Tandem's server with test agents,
 * raw `node:http` servers for cards and fake agents, and a fault-injecting proxy that answers
 * chosen requests with an error status, resets them, or cuts a stream after k events.
 */

import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import type { AgentCard, StreamResponse } from '../../src/protocol/generated/types.js';
import {
  createNodeServer,
  createRequestHandler,
  type A2AAgentMount,
  type A2ANodeServer,
} from '../../src/server.js';
import { clientTestAgent as testAgent } from '../support/agents.js';

export { sleep } from '../support/sync.js';

export { testAgent };

const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** Tandem's server on a loopback port; stopped after the test. */
export async function startTandem(
  agents: readonly A2AAgentMount[] = [
    { path: '', handler: createRequestHandler({ agent: testAgent }) },
  ],
  options: { cardMaxAgeSeconds?: number } = {},
): Promise<{ url: string; server: A2ANodeServer }> {
  const server = createNodeServer({ agents, heartbeatMs: 0, ...options });
  closers.push(() => server.shutdown({ deadlineMs: 500 }));
  const { url } = await server.listen({ port: 0, host: '127.0.0.1' });
  return { url, server };
}

/** A request as a raw server or the proxy saw it. */
export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The JSON-RPC method, when the body is a JSON-RPC request. */
  readonly rpcMethod: string | undefined;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function rpcMethodOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { method?: unknown };
    return typeof parsed.method === 'string' ? parsed.method : undefined;
  } catch {
    return undefined;
  }
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A raw HTTP server; `requests` records what it received. */
export async function startRawServer(
  handle: (request: SeenRequest, res: ServerResponse) => void | Promise<void>,
): Promise<{ url: string; requests: SeenRequest[] }> {
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    void readBody(req).then(async (body) => {
      const seen = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        body,
        rpcMethod: rpcMethodOf(body),
      };
      requests.push(seen);
      await handle(seen, res);
    });
  });
  return { url: await listen(server), requests };
}

/** What the proxy does with one request. */
export type Fault =
  | { readonly kind: 'pass' }
  | { readonly kind: 'status'; readonly status: number; readonly headers?: Record<string, string> }
  | { readonly kind: 'reset' }
  | { readonly kind: 'cut'; readonly afterEvents: number };

export const PASS: Fault = { kind: 'pass' };

/**
 * A proxy in front of `target` that asks `decide` about each request (with its index among all
 * requests) and then forwards it, answers a status, resets the connection, or forwards a stream
 * and destroys the connection right after the k-th complete SSE event.
 */
export async function startFaultProxy(
  target: string,
  decide: (request: SeenRequest, index: number) => Fault,
): Promise<{ url: string; requests: SeenRequest[] }> {
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const seen = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        body,
        rpcMethod: rpcMethodOf(body),
      };
      requests.push(seen);
      const fault = decide(seen, requests.length - 1);
      if (fault.kind === 'reset') return req.socket.destroy();
      if (fault.kind === 'status') {
        res.writeHead(fault.status, { 'content-type': 'text/plain', ...fault.headers });
        return res.end(`injected ${fault.status}`);
      }
      forward(target, seen, res, fault.kind === 'cut' ? fault.afterEvents : undefined);
    });
  });
  return { url: await listen(server), requests };
}

function forward(target: string, seen: SeenRequest, res: ServerResponse, cutAfter?: number): void {
  const upstream = httpRequest(
    new URL(seen.url, target),
    { method: seen.method, headers: seen.headers },
    (response) => {
      res.writeHead(response.statusCode ?? 502, response.headers);
      res.flushHeaders();
      let text = '';
      let sent = 0;
      let cut = false;
      response.on('data', (chunk: Buffer) => {
        if (cutAfter === undefined) return res.write(chunk);
        if (cut) return;
        text += chunk.toString('utf8');
        let events = 0;
        let end = 0;
        for (
          let at = text.indexOf('\n\n');
          at !== -1 && events < cutAfter;
          at = text.indexOf('\n\n', at + 2)
        ) {
          events++;
          end = at + 2;
        }
        const pending = end > sent ? text.slice(sent, end) : '';
        sent = Math.max(sent, end);
        if (events < cutAfter) {
          if (pending !== '') res.write(pending);
          return;
        }
        cut = true;
        response.destroy();
        // Destroy only once the events before the cut have reached the socket.
        res.write(pending, () => res.socket?.destroy());
      });
      response.on('end', () => {
        if (!cut) res.end();
      });
      response.on('error', () => res.socket?.destroy());
    },
  );
  upstream.on('error', () => res.socket?.destroy());
  upstream.end(seen.body);
}

/** A minimal valid card with the given interfaces. */
export function cardWith(
  supportedInterfaces: AgentCard['supportedInterfaces'],
  extra: Partial<AgentCard> = {},
): AgentCard {
  return {
    name: 'Card',
    description: 'A card',
    supportedInterfaces,
    version: '1.0.0',
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 's', name: 'S', description: 'S', tags: ['s'] }],
    ...extra,
  };
}

/** `task:STATE`, `status:STATE`, `artifact:<text>[+append]` or `message:<text>`. */
export function describeEvent(event: StreamResponse): string {
  if (event.task !== undefined) return `task:${event.task.status.state}`;
  if (event.statusUpdate !== undefined) return `status:${event.statusUpdate.status.state}`;
  if (event.artifactUpdate !== undefined) {
    const text = event.artifactUpdate.artifact.parts.map((p) => p.text ?? '').join('');
    return `artifact:${text}${event.artifactUpdate.append === true ? '+append' : ''}`;
  }
  return `message:${event.message?.parts.map((p) => p.text ?? '').join('') ?? ''}`;
}

/** Reads a stream to its end. */
export async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of stream) items.push(item);
  return items;
}

/** What {@link writeEndlessly} writes. */
export interface EndlessAnswer {
  readonly status?: number;
  readonly contentType: string;
  /** Written once, before the pieces. */
  readonly prefix?: string;
  /** Written again and again. */
  readonly piece: string;
  /** The server stops on its own past this many characters, so a client without a limit fails the test, not CI. */
  readonly giveUpAfter: number;
}

/**
 * Answers with `prefix`, then `piece` over and over, until the client hangs up or `giveUpAfter`
 * characters of pieces went; resolves with how many went, so a test can show the client stopped early.
 */
export function writeEndlessly(res: ServerResponse, answer: EndlessAnswer): Promise<number> {
  return new Promise((resolve) => {
    let sent = 0;
    let closed = false;
    res.on('close', () => {
      closed = true;
      resolve(sent);
    });
    res.writeHead(answer.status ?? 200, { 'content-type': answer.contentType });
    if (answer.prefix !== undefined) res.write(answer.prefix);
    const pump = (): void => {
      while (!closed && sent < answer.giveUpAfter) {
        sent += answer.piece.length;
        if (!res.write(answer.piece)) return void res.once('drain', pump);
      }
      if (!closed) res.end();
    };
    pump();
  });
}
