/**
 * Calls that come back to a task belong to whoever makes them, and link to where the task began:
 * a `SubscribeToTask`, or a message continuing an interrupted task, is a SERVER span in the
 * caller's trace with a link (`a2a.link: task_origin`) to the task's originating context — the
 * SendMessage SERVER span that created it, read from the store; a message's `referenceTaskIds`
 * link (`reference_task`) to theirs, and a reference to an unknown task links nothing. On every
 * store, and across two replicas of one PostgreSQL schema, where the origin was made by the
 * other replica.
 */

import { SpanKind, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCardResolver,
  createClient,
  type A2AClient,
  type StreamResponse,
  type Task,
} from '../../src/client.js';
import {
  createA2AServer,
  createRequestHandler,
  createTaskRuntime,
  defineAgent,
  type A2AServer,
  type TaskRuntime,
} from '../../src/server.js';
import { openTaskStore, type TaskStore } from '../../src/stores.js';
import { testCard } from '../support/agents.js';
import { describeMatrix } from '../support/matrix.js';
import { skipWithoutPostgres, testStoreSpec, type StoreName } from '../support/stores.js';
import { deferred, within, type Deferred } from '../support/sync.js';
import {
  parentOf,
  registerTraceRecorder,
  tandemSpan,
  type TraceRecorder,
} from './support/trace-recorder.js';
import { tracedServer } from './support/trace-server-spans.js';

let recorder: TraceRecorder;
beforeAll(() => {
  recorder = registerTraceRecorder();
});
afterAll(() => recorder.shutdown());

const STEP_MS = 10_000;
const AGENT = 'Returning';

const gates = new Map<string, Deferred<void>>();
function gate(key: string): Deferred<void> {
  let entry = gates.get(key);
  if (entry === undefined) {
    entry = deferred();
    gates.set(key, entry);
  }
  return entry;
}

/**
 * `wait <key>`: WORKING until the gate of `<key>` opens, then COMPLETED; `ask`: INPUT_REQUIRED,
 * and the next message completes it; anything else completes at once.
 */
const returningAgent = defineAgent({
  card: testCard(AGENT),
  async execute(ctx) {
    if (ctx.task !== undefined) return ctx.complete(`answered ${ctx.text}`);
    const [command = '', key = ''] = ctx.text.split(' ');
    if (command === 'ask') return ctx.inputRequired('and then?');
    if (command === 'wait') {
      await ctx.working();
      await gate(key).promise;
    }
    return ctx.complete('done');
  },
});

/** Runs `call` inside a root span of a trace of its own; resolves with its result and trace id. */
async function inNewTrace<T>(
  name: string,
  call: () => Promise<T>,
): Promise<{ result: T; traceId: string }> {
  return trace.getTracer('caller').startActiveSpan(name, { root: true }, async (span) => {
    try {
      return { result: await call(), traceId: span.spanContext().traceId };
    } finally {
      span.end();
    }
  });
}

/** The SERVER span of `operation` in trace `traceId`, once it has ended. */
function serverSpanIn(operation: string, traceId: string): Promise<ReadableSpan> {
  return recorder.waitFor(
    (s) => tandemSpan(SpanKind.SERVER, AGENT, operation)(s) && s.spanContext().traceId === traceId,
    `the ${operation} SERVER span in trace ${traceId}`,
  );
}

/** The SendMessage SERVER span that created `taskId`: the task's origin. */
function originOf(taskId: string): Promise<ReadableSpan> {
  return recorder.waitFor(
    (s) =>
      tandemSpan(SpanKind.SERVER, AGENT, 'SendMessage')(s) &&
      s.attributes['a2a.task.id'] === taskId,
    `the SendMessage SERVER span of task ${taskId}`,
  );
}

/** The links of `span` by what they point to, as `relation:spanId`. */
function linksOf(span: ReadableSpan): string[] {
  return span.links.map(
    (link) => `${String(link.attributes?.['a2a.link'])}:${link.context.spanId}`,
  );
}

/** The behaviour, over a client of the replica that creates tasks and one of the replica that returns to them. */
function returningCalls(
  clients: () => { origin: A2AClient; back: A2AClient },
  label: string,
): void {
  let keys = 0;

  it(`links a SubscribeToTask to the task’s origin, in the subscriber’s trace (${label})`, async () => {
    const { origin, back } = clients();
    const key = `${label.replace(/\W+/g, '-')}-${keys++}`;
    const created = await inNewTrace('creator', () =>
      origin.sendMessage({
        message: { parts: [{ text: `wait ${key}` }] },
        configuration: { returnImmediately: true },
      }),
    );
    const task = (created.result as { task: Task }).task;
    const originSpan = await originOf(task.id);
    expect(originSpan.spanContext().traceId).toBe(created.traceId);

    const subscribed = await inNewTrace('subscriber', async () => {
      const events = back.subscribeToTask({ id: task.id });
      const iterator = events[Symbol.asyncIterator]();
      const first = await within(
        iterator.next(),
        STEP_MS,
        `the first event of the subscription to ${task.id}`,
      );
      const snapshot: StreamResponse | undefined = first.done === true ? undefined : first.value;
      expect(snapshot?.task?.id).toBe(task.id);
      gate(key).resolve();
      const rest: StreamResponse[] = [];
      for (;;) {
        const next = await within(
          iterator.next(),
          STEP_MS,
          `the next event of the subscription to ${task.id}`,
        );
        if (next.done === true) break;
        rest.push(next.value);
      }
      return rest;
    });
    expect(subscribed.result.at(-1)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
    const span = await serverSpanIn('SubscribeToTask', subscribed.traceId);
    // Under the subscriber: its client span is the parent, in the subscriber's trace.
    expect(span.spanContext().traceId).not.toBe(created.traceId);
    expect(parentOf(span)).toBeDefined();
    expect(linksOf(span)).toEqual([`task_origin:${originSpan.spanContext().spanId}`]);
    expect(span.links[0]?.context.traceId).toBe(created.traceId);
    expect(span.links[0]?.attributes?.['a2a.task.id']).toBe(task.id);
  });

  it(`links a message continuing an interrupted task to the task’s origin (${label})`, async () => {
    const { origin, back } = clients();
    const asked = await inNewTrace('asker', () =>
      origin.sendMessage({ message: { parts: [{ text: 'ask' }] } }),
    );
    const task = (asked.result as { task: Task }).task;
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const originSpan = await originOf(task.id);
    const answered = await inNewTrace('answerer', () =>
      back.sendMessage({ message: { taskId: task.id, parts: [{ text: 'yes' }] } }),
    );
    expect((answered.result as { task: Task }).task.status.state).toBe('TASK_STATE_COMPLETED');
    const span = await serverSpanIn('SendMessage', answered.traceId);
    expect(linksOf(span)).toEqual([`task_origin:${originSpan.spanContext().spanId}`]);
  });

  it(`links a message to the tasks it refers to, those it can see (${label})`, async () => {
    const { origin, back } = clients();
    const earlier = await inNewTrace('earlier', () =>
      origin.sendMessage({ message: { parts: [{ text: 'done' }] } }),
    );
    const task = (earlier.result as { task: Task }).task;
    const originSpan = await originOf(task.id);
    const referring = await inNewTrace('referring', () =>
      back.sendMessage({
        message: { parts: [{ text: 'done' }], referenceTaskIds: [task.id, 'no-such-task'] },
      }),
    );
    const span = await serverSpanIn('SendMessage', referring.traceId);
    expect(linksOf(span)).toEqual([`reference_task:${originSpan.spanContext().spanId}`]);
    expect(span.links[0]?.attributes?.['a2a.task.id']).toBe(task.id);
  });
}

/** A traced server of the agent over `runtime`, and a client of it. */
async function serveReplica(
  runtime: TaskRuntime,
): Promise<{ server: A2AServer; client: A2AClient }> {
  const server = createA2AServer({
    agents: [
      {
        path: '',
        handler: createRequestHandler({ agent: returningAgent, runtime, agentName: 'returning' }),
      },
    ],
    ...tracedServer(),
    http: { port: 0, host: '127.0.0.1' },
  });
  const address = await server.listen();
  const client = await createClient(address.http?.url ?? '', {
    cardResolver: createCardResolver(),
  });
  return { server, client };
}

/** `count` replicas over the store of `name` (one store object, runtime and server each). */
function useReplicas(name: StoreName, count: number): () => A2AClient[] {
  const clients: A2AClient[] = [];
  const stores: TaskStore[] = [];
  const runtimes: TaskRuntime[] = [];
  const servers: A2AServer[] = [];
  let cleanup: () => Promise<void> = () => Promise.resolve();
  beforeAll(async () => {
    const spec = await testStoreSpec(name);
    cleanup = spec.cleanup;
    for (let i = 0; i < count; i++) {
      const store = await openTaskStore(spec.spec);
      stores.push(store);
      const runtime = createTaskRuntime({ store });
      await runtime.start();
      runtimes.push(runtime);
      const replica = await serveReplica(runtime);
      servers.push(replica.server);
      clients.push(replica.client);
    }
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.shutdown({ deadlineMs: 1_000 })));
    await Promise.all(runtimes.map((runtime) => runtime.close()));
    await Promise.all(stores.map((store) => store.close()));
    await cleanup();
  });
  return () => clients;
}

describeMatrix(
  'calls that return to a task',
  ({ store }) => {
    const replicas = useReplicas(store, 1);
    returningCalls(() => {
      const [only] = replicas();
      if (only === undefined) throw new Error('the server did not start');
      return { origin: only, back: only };
    }, store);
  },
  { bindings: ['jsonrpc'] },
);

describe('two replicas of one PostgreSQL schema', () => {
  if (skipWithoutPostgres()) return;
  const replicas = useReplicas('postgres', 2);
  returningCalls(() => {
    const [a, b] = replicas();
    if (a === undefined || b === undefined) throw new Error('the replicas did not start');
    return { origin: a, back: b };
  }, 'replica A creates, replica B returns');
});
