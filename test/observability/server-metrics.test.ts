/**
 * Every instrument of the catalogue after a workload that exercises each (calls and streams on
 * two bindings, an interrupted task, push deliveries to a webhook that answers and one that
 * fails, a limit's refusal, an authentication's refusal, a PostgreSQL store for batches, leases
 * and the change feed): served at `GET /metrics` on the server's own port, parsed with a real
 * Prometheus parser (prom2javascript), under the names of the standard OTLP→Prometheus mapping;
 * and the same instruments at a local OTLP/HTTP receiver, in protobuf and in JSON, under their
 * dotted names with their units.
 */

import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createClient, type A2AClient } from '../../src/client.js';
import {
  INSTRUMENTS,
  startTelemetry,
  type InstrumentDefinition,
  type Telemetry,
} from '../../src/otel.js';
import { nameWithUnit } from '../../src/otel/prometheus-names.js';
import {
  AuthenticationError,
  ANONYMOUS,
  createA2AServer,
  createPushNotifier,
  createRequestHandler,
  createTaskRuntime,
  type A2AServer,
  type PushNotifier,
  type TaskRuntime,
} from '../../src/server.js';
import { MemoryTaskStore, type TaskStore } from '../../src/stores.js';
import { PostgresTaskStore } from '../../src/stores-postgres.js';
import { clientTestAgent } from '../support/agents.js';
import { freshSchema, POSTGRES_URL, type TestSchema } from '../support/stores.js';
import { OtlpReceiver } from './support/otlp-receiver.js';
import { parsePrometheusText } from './support/prometheus-text.js';

/** Instruments only a PostgreSQL store records (batches); the others record with any store. */
const POSTGRES_ONLY = new Set(['a2a.server.store.batch.size']);

let telemetry: Telemetry;
let receiver: OtlpReceiver;
let schema: TestSchema | undefined;
let store: TaskStore;
let runtime: TaskRuntime;
let push: PushNotifier;
let server: A2AServer;
let webhooks: Server;
let url: string;
let hooks: string;

async function workload(): Promise<void> {
  const client: A2AClient = await createClient(url, { retry: false });
  await client.sendMessage({ message: { parts: [{ text: 'echo hi' }] } });
  await expect(client.getTask({ id: crypto.randomUUID() })).rejects.toThrow();
  for await (const _event of client.sendStreamingMessage({
    message: { parts: [{ text: 'stream 2' }] },
  }));
  // An interrupted task, answered: its wait is measured.
  const asked = await client.sendMessage({ message: { parts: [{ text: 'ask' }] } });
  const task = asked.task;
  expect(task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  // Push: one webhook answers, the other fails (and its config is failing at once).
  const waiting = await client.sendMessage({
    message: { parts: [{ text: 'wait' }] },
    configuration: { returnImmediately: true },
  });
  const waitingId = waiting.task?.id ?? '';
  await client.createTaskPushNotificationConfig({ taskId: waitingId, url: `${hooks}/ok` });
  await client.createTaskPushNotificationConfig({ taskId: waitingId, url: `${hooks}/fail` });
  await client.sendMessage({
    message: { taskId: task?.id ?? '', contextId: task?.contextId ?? '', parts: [{ text: 'Ada' }] },
  });
  await client.cancelTask({ id: waitingId });
  // A limit's refusal (too many parts) and an authentication's.
  await expect(
    client.sendMessage({ message: { parts: [{ text: 'a' }, { text: 'b' }, { text: 'c' }] } }),
  ).rejects.toThrow();
  const denied = await fetch(`${url}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-deny': 'yes' },
    body: '{}',
  });
  expect(denied.status).toBe(401);
}

function expected(): InstrumentDefinition[] {
  return Object.values(INSTRUMENTS).filter(
    (definition) => POSTGRES_URL !== undefined || !POSTGRES_ONLY.has(definition.name),
  );
}

/** The Prometheus family name of an instrument, by the standard mapping. */
function prometheusName(definition: InstrumentDefinition): string {
  const base = nameWithUnit(definition.name, definition.unit, definition.kind === 'gauge').replace(
    /[^a-zA-Z0-9_:]/g,
    '_',
  );
  return definition.kind === 'counter' ? `${base}_total` : base;
}

describe.each([
  ['http/protobuf', 'application/x-protobuf'],
  ['http/json', 'application/json'],
] as const)('metrics exported in %s', (protocol, contentType) => {
  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', receiver.endpoint);
    vi.stubEnv('OTEL_EXPORTER_OTLP_PROTOCOL', protocol);
    telemetry = await startTelemetry({ prometheus: true });
    webhooks = createServer((request, response) => {
      request.resume();
      response.writeHead(request.url === '/ok' ? 200 : 500).end();
    });
    webhooks.listen(0, '127.0.0.1');
    await once(webhooks, 'listening');
    hooks = `http://127.0.0.1:${(webhooks.address() as AddressInfo).port}`;
    if (POSTGRES_URL !== undefined) {
      schema = freshSchema();
      store = await PostgresTaskStore.open({
        connectionString: POSTGRES_URL,
        schema: schema.schema,
      });
    } else {
      store = new MemoryTaskStore();
    }
    runtime = createTaskRuntime({ store });
    await runtime.start();
    push = createPushNotifier({
      runtime,
      allow: ['127.0.0.1'],
      retry: { failingAfter: 1, baseMs: 60_000 },
    });
    const handler = createRequestHandler({ agent: clientTestAgent, runtime, push });
    server = createA2AServer({
      agents: [{ path: '', handler }],
      limits: { partsPerMessage: 2 },
      authenticate: ({ headers }) =>
        headers.get('x-deny') == null ? ANONYMOUS : new AuthenticationError('No entry'),
      http: { port: 0, host: '127.0.0.1', heartbeatMs: 0, metrics: telemetry.metricsText },
    });
    url = (await server.listen()).http?.url ?? '';
    await workload();
    // The deliveries are made in the background: wait until both webhooks were tried.
    await vi.waitFor(
      async () => {
        const text = await (await fetch(`${url}/metrics`)).text();
        expect(text).toContain('a2a_server_push_delivery_duration_seconds_count');
        expect(text).toContain('a2a_server_push_delivery_failures_total{');
      },
      { timeout: 10_000, interval: 50 },
    );
  }, 60_000);

  afterAll(async () => {
    await server?.shutdown({ deadlineMs: 500 });
    await push?.close();
    await runtime?.close();
    await store?.close();
    await schema?.drop();
    await telemetry?.shutdown();
    await receiver?.close();
    webhooks?.close();
    vi.unstubAllEnvs();
  });

  describe('GET /metrics on the server’s port', () => {
    it('is Prometheus text with every instrument, named by the OTLP→Prometheus mapping', async () => {
      const response = await fetch(`${url}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      const families = await parsePrometheusText(await response.text());
      for (const definition of expected()) {
        const name = prometheusName(definition);
        expect(families[name], `${definition.name} as ${name}`).toBeDefined();
      }
      // Seconds and units become suffixes; counters end in _total.
      expect(families.a2a_server_operation_duration_seconds?.type).toBe('histogram');
      expect(families.a2a_server_tasks_finished_total?.type).toBe('counter');
      // The runtime's metrics come with the preset.
      expect(Object.keys(families).some((name) => name.startsWith('nodejs_eventloop'))).toBe(true);
    });

    it('carries no task or context id as a label', async () => {
      const text = await (await fetch(`${url}/metrics`)).text();
      expect(text).not.toMatch(/a2a_task_id|conversation_id|message_id/);
      expect(text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);
    });
  });

  describe('the same instruments over OTLP', () => {
    it('arrive at the receiver under their dotted names and units', async () => {
      await telemetry.shutdown();
      telemetry = undefined as unknown as Telemetry;
      const received = new Map(receiver.metrics.map((metric) => [metric.name, metric]));
      for (const definition of expected()) {
        const metric = received.get(definition.name);
        expect(metric, definition.name).toBeDefined();
        expect(metric?.unit).toBe(definition.unit);
      }
      const exports = receiver.exports.filter((e) => e.signal === 'metrics');
      expect(exports.length).toBeGreaterThan(0);
      for (const e of exports) expect(e.contentType).toBe(contentType);
    });
  });
});
