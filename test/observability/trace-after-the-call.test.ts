/**
 * What a task does after the call that started it has answered stays in that call's trace, on
 * every store: the agent's own spans are children of the call's SERVER span also when the
 * execution outlives a `returnImmediately` call, and each push delivery attempt is a CLIENT span
 * `PushNotification`, a child of the task's stored originating context, whose `traceparent`
 * reaches the webhook — asserted at a real receiver on loopback, a retried attempt included.
 */

import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createCardResolver, createClient, type A2AClient, type Task } from '../../src/client.js';
import { defineAgent } from '../../src/server.js';
import { testCard } from '../support/agents.js';
import { useBehaviourEnv } from '../support/behaviour-env.js';
import { PROTOCOL_BINDINGS } from '../support/drivers/bindings.js';
import { describeMatrix } from '../support/matrix.js';
import { deferred, within, type Deferred } from '../support/sync.js';
import {
  startWebhookReceiver,
  type ReceivedPush,
  type WebhookReceiver,
} from '../support/webhook-receiver.js';
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

/** What `later <key>` waits for, after it has said it is working. */
const gates = new Map<string, Deferred<void>>();
function gate(key: string): Deferred<void> {
  let entry = gates.get(key);
  if (entry === undefined) {
    entry = deferred();
    gates.set(key, entry);
  }
  return entry;
}

/** `later <key>`: WORKING; once the gate of `<key>` opens, a span of its own, an artifact, done. */
const laterAgent = defineAgent({
  card: testCard('Later'),
  async execute(ctx) {
    await ctx.working();
    await gate(ctx.text).promise;
    trace.getTracer('later-agent').startActiveSpan('tool.after', (span) => {
      span.setAttribute('test.key', ctx.text);
      span.end();
    });
    await ctx.artifact('done');
    return ctx.complete();
  },
});

/** The traceparent a webhook POST carried, split. */
function traceparentOf(push: ReceivedPush): { traceId: string; spanId: string } {
  const header = push.headers.traceparent;
  const match =
    typeof header === 'string' ? /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(header) : null;
  if (match === null)
    throw new Error(`No traceparent on a webhook POST: ${JSON.stringify(header)}`);
  return { traceId: match[1] ?? '', spanId: match[2] ?? '' };
}

describeMatrix(
  'after the call',
  (axis) => {
    const env = useBehaviourEnv(axis);
    let hook: WebhookReceiver;
    let client: A2AClient;
    let keys = 0;

    beforeAll(async () => {
      hook = await startWebhookReceiver();
      const server = await env.serve(laterAgent, {
        ...tracedServer(),
        push: env.push(),
      });
      client = await createClient(server.url, {
        cardResolver: createCardResolver(),
        bindings: [PROTOCOL_BINDINGS[axis.binding]],
      });
      return () => hook.close();
    });

    it('keeps the agent in its call’s trace, and every push delivery attempt a child of the task’s origin', async () => {
      const key = `later ${axis.binding}-${axis.store}-${keys++}`;
      // The first POST fails: its retry is an attempt, and a span, of its own.
      const first = hook.requests.length;
      hook.respondWith((_, index) => (index === first ? { status: 503 } : { status: 204 }));
      const answer = await client.sendMessage({
        message: { parts: [{ text: key }] },
        configuration: {
          returnImmediately: true,
          taskPushNotificationConfig: { url: hook.url, token: 'not-a-trace-attribute' },
        },
      });
      const task = (answer as { task: Task }).task;
      expect(task.status.state).not.toBe('TASK_STATE_COMPLETED');
      const call = await recorder.waitFor(
        (s) =>
          tandemSpan(SpanKind.SERVER, 'Later', 'SendMessage')(s) &&
          s.attributes['a2a.task.id'] === task.id,
        'the SendMessage SERVER span',
      );

      // The call has answered and its span has ended; the agent goes on, in the call's trace.
      gate(key).resolve();
      const tool = await recorder.waitFor(
        (s) => s.name === 'tool.after' && s.attributes['test.key'] === key,
        'the agent’s span after the call',
      );
      expect(tool.spanContext().traceId).toBe(call.spanContext().traceId);
      expect(parentOf(tool)).toBe(call.spanContext().spanId);

      // Every event is pushed; the last one says COMPLETED.
      const completed = (push: ReceivedPush) =>
        push.payload?.statusUpdate?.status.state === 'TASK_STATE_COMPLETED';
      for (let n = 1; !hook.delivered.some(completed); n++) {
        await within(hook.received(n), STEP_MS, `webhook POST ${n} of task ${task.id}`);
      }
      const posts = hook.requests.slice(first);
      expect(posts.length).toBeGreaterThanOrEqual(2);
      for (const post of posts) {
        const { traceId, spanId } = traceparentOf(post);
        // The POST carries the task's trace, and the span of its own attempt.
        expect(traceId).toBe(call.spanContext().traceId);
        const attempt = await recorder.waitFor(
          (s) => s.name === 'PushNotification' && s.spanContext().spanId === spanId,
          `the span of the attempt that POSTed with span id ${spanId}`,
        );
        expect(attempt.kind).toBe(SpanKind.CLIENT);
        expect(parentOf(attempt)).toBe(call.spanContext().spanId);
        expect(attempt.attributes['server.port']).toBe(hook.port);
        expect(attempt.attributes['a2a.push.config.id']).toBeTypeOf('string');
      }
      // Every span has ended now (waited for above): one per POST.
      const attempts = recorder
        .spans()
        .filter(
          (s) =>
            tandemSpan(SpanKind.CLIENT, undefined, 'PushNotification')(s) &&
            s.attributes['a2a.task.id'] === task.id,
        );
      // The refused attempt is an error span saying why, low-cardinality; nothing carries the token.
      const failed = attempts.find((s) => s.attributes['error.type'] === '503');
      expect(failed?.status.code).toBe(SpanStatusCode.ERROR);
      expect(failed?.attributes['http.response.status_code']).toBe(503);
      expect(JSON.stringify(attempts.map((s) => s.attributes))).not.toContain(
        'not-a-trace-attribute',
      );
      expect(attempts.length).toBe(posts.length);
    });
  },
  { bindings: ['jsonrpc', 'grpc'] },
);
