/**
 * A real webhook receiver on loopback for push notification tests: records every POST (headers,
 * body, the parsed `StreamResponse`) and answers as the test says — a status, a `Retry-After`,
 * a delay, or no answer at all (a hung receiver). `received(n)` resolves once `n` requests
 * arrived, so that tests await deliveries instead of sleeping.
 */

import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StreamResponse } from '../../src/index.js';
import { Counter } from './sync.js';

/** One request as the receiver got it. */
export interface ReceivedPush {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The body parsed, when it is JSON. */
  readonly payload: StreamResponse | undefined;
  /** The status it was answered with (`undefined`: not answered). */
  readonly status: number | undefined;
}

/** How to answer one request (by its index among all received). */
export type PushResponder = (
  request: Omit<ReceivedPush, 'status'>,
  index: number,
) => { status: number; headers?: Record<string, string> } | 'hang';

/** A receiver listening on 127.0.0.1. */
export interface WebhookReceiver {
  readonly url: string;
  readonly port: number;
  readonly requests: readonly ReceivedPush[];
  /** Requests answered 2xx, in arrival order. */
  readonly delivered: readonly ReceivedPush[];
  /** Resolves once `n` requests have arrived. */
  received(n: number): Promise<void>;
  /** Resolves once `n` requests were answered 2xx. */
  deliveredCount(n: number): Promise<void>;
  respondWith(responder: PushResponder): void;
  /** Answers every request held by a `'hang'` so far with `status`. */
  releaseHung(status: number): void;
  close(): Promise<void>;
}

/** Starts a receiver (on `port`, or a free one) that answers 204 unless told otherwise. */
export async function startWebhookReceiver(
  options: { port?: number; path?: string; responder?: PushResponder } = {},
): Promise<WebhookReceiver> {
  const requests: ReceivedPush[] = [];
  const delivered: ReceivedPush[] = [];
  const arrivals = new Counter();
  const successes = new Counter();
  const hung: { res: ServerResponse; index: number }[] = [];
  let responder: PushResponder = options.responder ?? (() => ({ status: 204 }));
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let payload: StreamResponse | undefined;
      try {
        payload = JSON.parse(body) as StreamResponse;
      } catch {
        payload = undefined;
      }
      const base = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        payload,
      };
      const answer = responder(base, requests.length);
      if (answer === 'hang') {
        hung.push({ res, index: requests.length });
        requests.push({ ...base, status: undefined });
        arrivals.increment();
        return;
      }
      const record = { ...base, status: answer.status };
      requests.push(record);
      if (answer.status >= 200 && answer.status < 300) delivered.push(record);
      res.writeHead(answer.status, answer.headers).end();
      arrivals.increment();
      if (answer.status >= 200 && answer.status < 300) successes.increment();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${options.path ?? '/webhook'}`,
    port,
    requests,
    delivered,
    received: (n) => arrivals.reached(n),
    deliveredCount: (n) => successes.reached(n),
    respondWith(next) {
      responder = next;
    },
    releaseHung(status) {
      for (const { res, index } of hung.splice(0)) {
        const record = { ...(requests[index] as ReceivedPush), status };
        requests[index] = record;
        res.writeHead(status).end();
        if (status >= 200 && status < 300) {
          delivered.push(record);
          successes.increment();
        }
      }
    },
    async close() {
      for (const { res } of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The kind of each payload: `task`, `statusUpdate:<state>`, `artifactUpdate`, `message`. */
export function payloadKinds(requests: readonly ReceivedPush[]): string[] {
  return requests.map(({ payload }) => {
    if (payload?.statusUpdate !== undefined) return `status:${payload.statusUpdate.status.state}`;
    if (payload?.task !== undefined) return 'task';
    if (payload?.artifactUpdate !== undefined) return 'artifact';
    if (payload?.message !== undefined) return 'message';
    return 'other';
  });
}

/** The event seq each request delivered, from its delivery id (`<task>:<config>:<seq>`). */
export function deliveredSeqs(requests: readonly ReceivedPush[]): number[] {
  return requests.map((request) => {
    const id = request.headers['x-a2a-delivery-id'];
    return Number((typeof id === 'string' ? id : '').split(':')[2]);
  });
}
