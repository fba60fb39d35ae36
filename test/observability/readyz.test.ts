/**
 * `GET /readyz`: ready (200) once the runtime has started and the store answers; 503 with the
 * reason while the store is unreachable — a PostgreSQL store reached through a TCP proxy of the
 * test, which is stopped and started again — and while the runtime has not started; `/healthz`
 * stays 200 throughout (liveness).
 */

import { once } from 'node:events';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createNodeServer,
  createRequestHandler,
  createTaskRuntime,
  type A2ANodeServer,
  type TaskRuntime,
} from '../../src/server.js';
import { MemoryTaskStore } from '../../src/stores.js';
import { PostgresTaskStore } from '../../src/stores-postgres.js';
import { clientTestAgent } from '../support/agents.js';
import {
  freshSchema,
  POSTGRES_URL,
  skipWithoutPostgres,
  type TestSchema,
} from '../support/stores.js';

/** A TCP proxy to PostgreSQL that the test can stop (dropping every connection) and restart. */
class StoppableProxy {
  #server: Server | undefined;
  readonly #sockets = new Set<Socket>();
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    server.listen(this.port, '127.0.0.1');
    await once(server, 'listening');
    this.port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const socket of this.#sockets) socket.destroy();
    if (server !== undefined) await new Promise((resolve) => server.close(resolve));
  }
}

async function probe(url: string, path: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url + path);
  return { status: response.status, body: await response.json() };
}

describe('/readyz over a PostgreSQL store', () => {
  if (skipWithoutPostgres()) return;
  let proxy: StoppableProxy;
  let schema: TestSchema;
  let store: PostgresTaskStore;
  let runtime: TaskRuntime;
  let server: A2ANodeServer;
  let url: string;

  beforeAll(async () => {
    const target = new URL(POSTGRES_URL ?? '');
    proxy = new StoppableProxy({ host: target.hostname, port: Number(target.port || 5432) });
    await proxy.start();
    schema = freshSchema();
    const proxied = new URL(target);
    proxied.port = String(proxy.port);
    store = await PostgresTaskStore.open({
      connectionString: proxied.toString(),
      // The change feed listens on a connection of its own, past the proxy: what goes away is
      // the database as the pool reaches it.
      listenConnectionString: target.toString(),
      schema: schema.schema,
    });
    runtime = createTaskRuntime({ store });
    await runtime.start();
    server = createNodeServer({
      agents: [{ path: '', handler: createRequestHandler({ agent: clientTestAgent, runtime }) }],
    });
    ({ url } = await server.listen({ port: 0, host: '127.0.0.1' }));
  });

  afterAll(async () => {
    await server.shutdown({ deadlineMs: 500 });
    await runtime.close();
    await proxy.start().catch(() => undefined);
    await store.close();
    await proxy.stop();
    await schema.drop();
  });

  it('is ready while the store answers', async () => {
    expect(await probe(url, '/readyz')).toEqual({ status: 200, body: { status: 'ready' } });
  });

  it('is 503 with the reason while the store is unreachable; /healthz stays 200', async () => {
    await proxy.stop();
    const refused = await probe(url, '/readyz');
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ status: 'not ready', agent: '/' });
    expect((refused.body as { reason: string }).reason).toMatch(
      /^the task store is unreachable \(/,
    );
    // Liveness is another question: the process is alive.
    expect((await probe(url, '/healthz')).status).toBe(200);
  });

  it('is ready again once the store is back', async () => {
    await proxy.start();
    expect(await probe(url, '/readyz')).toEqual({ status: 200, body: { status: 'ready' } });
  });
});

describe('/readyz before the runtime has started', () => {
  let runtime: TaskRuntime;
  let server: A2ANodeServer;
  let url: string;

  beforeAll(async () => {
    runtime = createTaskRuntime({ store: new MemoryTaskStore() });
    server = createNodeServer({
      agents: [{ path: '', handler: createRequestHandler({ agent: clientTestAgent, runtime }) }],
    });
    ({ url } = await server.listen({ port: 0, host: '127.0.0.1' }));
  });

  afterAll(async () => {
    await server.shutdown({ deadlineMs: 500 });
    await runtime.close();
  });

  it('is 503 until start() has completed, then 200', async () => {
    const before = await probe(url, '/readyz');
    expect(before).toEqual({
      status: 503,
      body: { status: 'not ready', agent: '/', reason: 'the task runtime has not been started' },
    });
    await runtime.start();
    expect((await probe(url, '/readyz')).status).toBe(200);
  });
});
