/**
 * What push delivers beyond the defaults, on one binding and store (the behaviour suite covers
 * the matrix): status-only and coalesced artifact chunks; redirects followed to admitted
 * destinations only; and the allow list's exactness (`127.0.0.1` admits that address alone).
 */

import { describe, expect, it } from 'vitest';
import { testAgent } from '../support/agents.js';
import { useBehaviourEnv } from '../support/behaviour-env.js';
import { send } from '../support/messages.js';
import { deliveredSeqs, payloadKinds, startWebhookReceiver } from '../support/webhook-receiver.js';
import { pollUntil, within } from '../support/sync.js';
import { DestinationPolicy } from '../../src/push/destination-policy.js';
import { parseServePush } from '../../src/cli/serve/push.js';
import { UsageFailure } from '../../src/cli/cli-values.js';
import { TaskNotFoundError } from '../../src/index.js';
import {
  createCallContext,
  createPushNotifier,
  createRequestHandler,
  createTaskRuntime,
} from '../../src/server.js';
import { MemoryTaskStore } from '../../src/stores.js';

describe('status-only delivery', () => {
  const env = useBehaviourEnv({ binding: 'rest', store: 'memory' });

  it('delivers the task snapshot and status updates only', async () => {
    const { agent } = await env.serve(testAgent, { push: env.push({ statusOnly: true }) });
    const hook = await startWebhookReceiver();
    try {
      await agent.sendTask(send('stream 3', {}, { taskPushNotificationConfig: { url: hook.url } }));
      for (let n = 1; !payloadKinds(hook.delivered).includes('status:TASK_STATE_COMPLETED'); n++) {
        await hook.deliveredCount(n);
      }
      expect(payloadKinds(hook.delivered)).toEqual([
        'task',
        'status:TASK_STATE_WORKING',
        'status:TASK_STATE_COMPLETED',
      ]);
    } finally {
      await hook.close();
    }
  });
});

describe('coalesced artifact chunks', () => {
  const env = useBehaviourEnv({ binding: 'jsonrpc', store: 'sqlite' });

  it('sends the chunks of one artifact pending together as one update, every part in order', async () => {
    const { agent } = await env.serve(testAgent, { push: env.push({ coalesceArtifacts: true }) });
    const hook = await startWebhookReceiver();
    // The receiver is refused at first, so that every chunk is pending when it comes back.
    let accept = false;
    hook.respondWith(() => (accept ? { status: 204 } : { status: 503 }));
    try {
      await agent.sendTask(send('stream 4', {}, { taskPushNotificationConfig: { url: hook.url } }));
      accept = true;
      for (let n = 1; !payloadKinds(hook.delivered).includes('status:TASK_STATE_COMPLETED'); n++) {
        await hook.deliveredCount(n);
      }
      const artifacts = hook.delivered.filter((r) => r.payload?.artifactUpdate !== undefined);
      const parts = artifacts.flatMap(
        (r) =>
          r.payload?.artifactUpdate?.artifact.parts.map((p) => ('text' in p ? p.text : '')) ?? [],
      );
      expect(parts).toEqual(['chunk-0', 'chunk-1', 'chunk-2', 'chunk-3']);
      expect(artifacts.length).toBeLessThan(4);
      expect(artifacts[artifacts.length - 1]?.payload?.artifactUpdate?.lastChunk).toBe(true);
      const ranged = artifacts.map((r) => String(r.headers['x-a2a-delivery-id']));
      expect(ranged.some((id) => /:\d+-\d+$/.test(id))).toBe(true);
    } finally {
      await hook.close();
    }
  });
});

describe('redirects', () => {
  const env = useBehaviourEnv({ binding: 'jsonrpc', store: 'memory' });

  it('follows a redirect to an admitted destination, and none to a private one', async () => {
    const { agent } = await env.serve(testAgent, { push: env.push() });
    const target = await startWebhookReceiver();
    const forbidden = await startWebhookReceiver();
    const hook = await startWebhookReceiver();
    const forbiddenUrl = `http://127.0.0.2:${forbidden.port}/hook`;
    hook.respondWith((request) =>
      request.path === '/to-target'
        ? { status: 307, headers: { location: target.url } }
        : { status: 308, headers: { location: forbiddenUrl } },
    );
    try {
      const base = hook.url.replace(/\/webhook$/, '');
      const followed = await agent.sendTask(send('ask'));
      await agent.createTaskPushNotificationConfig({
        taskId: followed.id,
        url: `${base}/to-target`,
        token: 't',
      });
      await agent.sendTask(send('Ada', { taskId: followed.id }));
      for (
        let n = 1;
        !payloadKinds(target.delivered).includes('status:TASK_STATE_COMPLETED');
        n++
      ) {
        await target.deliveredCount(n);
      }
      // The credentials go to the configured origin only: the target is another one (its port).
      expect(hook.requests[0]?.headers['x-a2a-notification-token']).toBe('t');
      expect(target.delivered[0]?.headers['x-a2a-notification-token']).toBeUndefined();

      const refused = await agent.sendTask(send('ask'));
      await agent.createTaskPushNotificationConfig({
        taskId: refused.id,
        id: 'redirected',
        url: `${base}/to-private`,
      });
      const logged = env.nextLog(({ context }) => {
        const { configId, reason } = context as { configId?: string; reason?: string };
        return configId === 'redirected' && reason?.includes('redirected to') === true;
      });
      await agent.sendTask(send('Ada', { taskId: refused.id }));
      expect((await logged).context).toMatchObject({ permanent: true });
      expect(forbidden.requests).toHaveLength(0);
    } finally {
      await Promise.all([target.close(), forbidden.close(), hook.close()]);
    }
  });
});

describe('the allow list', () => {
  it('admits exactly the addresses, ranges and names it lists', () => {
    const policy = new DestinationPolicy(['127.0.0.1', '10.1.2.0/24', 'hooks.internal', '::1']);
    const admitted = (url: string) => typeof policy.checkUrl(url) !== 'string';
    expect(admitted('http://127.0.0.1:9000/')).toBe(true);
    expect(admitted('http://127.0.0.2/')).toBe(false);
    expect(admitted('http://[::ffff:127.0.0.1]/')).toBe(true);
    expect(admitted('http://10.1.2.200/')).toBe(true);
    expect(admitted('http://10.1.3.1/')).toBe(false);
    expect(admitted('http://[::1]/')).toBe(true);
    expect(admitted('http://localhost/')).toBe(false);
    expect(admitted('http://hooks.internal/')).toBe(true);
    expect(policy.checkAddress('10.1.2.7')).toBeUndefined();
    expect(policy.checkAddress('192.168.0.1')).toMatch(/private/);
    expect(() => new DestinationPolicy(['10.0.0.0/99'])).toThrow(/not a valid CIDR/);
  });
});

describe('the configs-per-task limit', () => {
  it('is set by --push-max-configs or TANDEM_PUSH_MAX_CONFIGS, a whole number of at least 1', async () => {
    expect(parseServePush({ 'push-max-configs': '3' })?.maxConfigsPerTask).toBe(3);
    expect(parseServePush({})?.maxConfigsPerTask).toBeUndefined();
    process.env.TANDEM_PUSH_MAX_CONFIGS = '4';
    try {
      expect(parseServePush({})?.maxConfigsPerTask).toBe(4);
      expect(parseServePush({ 'push-max-configs': '2' })?.maxConfigsPerTask).toBe(2);
    } finally {
      delete process.env.TANDEM_PUSH_MAX_CONFIGS;
    }
    expect(() => parseServePush({ 'push-max-configs': '0' })).toThrow(UsageFailure);
    expect(() => parseServePush({ 'no-push': true, 'push-max-configs': '2' })).toThrow(
      /--push-max-configs has no effect with --no-push/,
    );
    const runtime = createTaskRuntime({ store: new MemoryTaskStore() });
    expect(() => createPushNotifier({ runtime, maxConfigsPerTask: 0 })).toThrow(
      /maxConfigsPerTask must be a positive integer; got/,
    );
    await runtime.close();
  });
});

describe('the delivery status', () => {
  it('shows the owner what is pending, the failures and the last error, then the recovery', async () => {
    const store = new MemoryTaskStore();
    const runtime = createTaskRuntime({ store });
    await runtime.start();
    const push = createPushNotifier({
      runtime,
      allow: ['127.0.0.1'],
      retry: { baseMs: 20, maxMs: 50, failingAfter: 2, probeMs: 100 },
      scanMs: 50,
    });
    const handler = createRequestHandler({ agent: testAgent, runtime, agentName: 'status', push });
    const hook = await startWebhookReceiver();
    let accept = false;
    hook.respondWith(() => (accept ? { status: 204 } : { status: 503 }));
    const call = createCallContext({ principal: { id: 'owner', anonymous: false } });
    const scope = { agent: 'status', tenant: '', owner: 'owner' };
    try {
      const answer = await handler.sendMessage(call, send('ask'));
      const taskId = answer.task?.id ?? '';
      await push.create(scope, { taskId, id: 'c', url: hook.url });
      await handler.sendMessage(call, send('Ada', { taskId }));
      // The third attempt comes after the second failure was recorded.
      await hook.received(3);
      const failing = await push.deliveryStatus(scope, taskId, 'c');
      expect(failing).toMatchObject({ failing: true, lastError: 'HTTP 503' });
      expect(failing.pending).toBeGreaterThan(0);
      expect(failing.failures).toBeGreaterThanOrEqual(2);
      await expect(
        push.deliveryStatus({ ...scope, owner: 'someone else' }, taskId, 'c'),
      ).rejects.toBeInstanceOf(TaskNotFoundError);
      accept = true;
      for (let n = 1; !payloadKinds(hook.delivered).includes('status:TASK_STATE_COMPLETED'); n++) {
        await hook.deliveredCount(n);
      }
      // The last delivery is recorded just after the receiver answered it: no event to await.
      const recovered = await pollUntil(async () => {
        const status = await push.deliveryStatus(scope, taskId, 'c');
        return status.pending === 0 ? status : undefined;
      }, 'the last delivery to be recorded');
      expect(recovered).toMatchObject({ pending: 0, failures: 0, failing: false });
      expect(recovered.lastSuccessAt).toMatch(/Z$/);
    } finally {
      await handler.shutdown({ deadlineMs: 500 });
      await push.close();
      await runtime.close();
      await hook.close();
    }
  });
});

describe('the memory store compaction', () => {
  it('keeps the log of a finished task until a webhook that was down has received all of it', async () => {
    // No finished task keeps its log beyond its push deliveries.
    const store = new MemoryTaskStore({ retainedLogs: 0 });
    const runtime = createTaskRuntime({ store });
    await runtime.start();
    const push = createPushNotifier({
      runtime,
      allow: ['127.0.0.1'],
      retry: { baseMs: 20, maxMs: 50, failingAfter: 50, probeMs: 100 },
      scanMs: 50,
    });
    const handler = createRequestHandler({ agent: testAgent, runtime, agentName: 'keep', push });
    const hook = await startWebhookReceiver();
    let down = true;
    hook.respondWith(() => (down ? { status: 503 } : { status: 204 }));
    const call = createCallContext({ principal: { id: 'owner', anonymous: false } });
    const scope = { agent: 'keep', tenant: '', owner: 'owner' };
    try {
      const first = await handler.sendMessage(
        call,
        send('ask', {}, { taskPushNotificationConfig: { id: 'c', url: hook.url } }),
      );
      const taskId = first.task?.id ?? '';
      await handler.sendMessage(call, send('Ada', { taskId }));
      await hook.received(2);
      // Another task finishing compacts the finished ones whose configs have everything.
      const other = await handler.sendMessage(call, send('ask'));
      await handler.sendMessage(call, send('Bob', { taskId: other.task?.id ?? '' }));
      expect(await store.readEvents(taskId, 0, 100)).not.toHaveLength(0);
      down = false;
      for (let n = 1; !payloadKinds(hook.delivered).includes('status:TASK_STATE_COMPLETED'); n++) {
        await hook.deliveredCount(n);
      }
      const seqs = deliveredSeqs(hook.delivered);
      expect(seqs).toEqual(seqs.map((_, i) => i + 1));
      // Delivered: the log goes (compacted), the task stays readable.
      await pollUntil(
        async () => ((await store.readEvents(taskId, 0, 100)) === undefined ? true : undefined),
        'the delivered task to be compacted',
      );
      expect((await push.deliveryStatus(scope, taskId, 'c')).pending).toBe(0);
    } finally {
      await handler.shutdown({ deadlineMs: 500 });
      await push.close();
      await runtime.close();
      await hook.close();
    }
  });
});

describe('bounded delivery', () => {
  const env = useBehaviourEnv({ binding: 'jsonrpc', store: 'sqlite' });

  it('delivers at most maxWorkers configs at once, the others waiting in the store until a worker is free', async () => {
    const { agent } = await env.serve(testAgent, { push: env.push({ maxWorkers: 3 }) });
    const hook = await startWebhookReceiver({ responder: () => 'hang' });
    try {
      const tasks = [];
      for (let i = 0; i < 8; i++) {
        tasks.push(
          await agent.sendTask(send('ask', {}, { taskPushNotificationConfig: { url: hook.url } })),
        );
      }
      await hook.received(3);
      // More round trips to the server: time for a fourth attempt, were one allowed.
      for (const task of tasks) await agent.getTask({ id: task.id });
      expect(hook.requests).toHaveLength(3);
      hook.respondWith(() => ({ status: 204 }));
      hook.releaseHung(204);
      // Each task: its snapshot and its INPUT_REQUIRED status.
      await hook.deliveredCount(2 * tasks.length);
      const perTask = new Map<string, number>();
      for (const request of hook.delivered) {
        const id = request.payload?.task?.id ?? request.payload?.statusUpdate?.taskId ?? '';
        perTask.set(id, (perTask.get(id) ?? 0) + 1);
      }
      expect([...perTask.keys()].sort()).toEqual(tasks.map((t) => t.id).sort());
    } finally {
      await hook.close();
    }
  });
});

function taskIdOf(context: object): unknown {
  return (context as { taskId?: unknown }).taskId;
}

describe('the log of failed deliveries', () => {
  const env = useBehaviourEnv({ binding: 'jsonrpc', store: 'memory' });

  it('warns of a delivery given up (HTTP 400), and tells a retried one (503) at info', async () => {
    const { agent } = await env.serve(testAgent, { push: env.push() });
    const hook = await startWebhookReceiver();
    // The first POST is refused for a while (retried), the second for good (given up).
    hook.respondWith((_request, index) => ({
      status: index === 0 ? 503 : index === 1 ? 400 : 204,
    }));
    try {
      const task = await agent.sendTask(
        send('echo hi', {}, { taskPushNotificationConfig: { url: hook.url } }),
      );
      const given = await within(
        env.nextLog(
          (e) =>
            (e.message ?? '').includes('failed permanently') && taskIdOf(e.context) === task.id,
        ),
        10_000,
        'the log of the delivery refused with HTTP 400',
      );
      expect(given.level).toBe('warn');
      expect(given.context).toMatchObject({ reason: 'HTTP 400', permanent: true });
      const retried = env.logs.find(
        (e) => e.message === 'push delivery attempt failed' && taskIdOf(e.context) === task.id,
      );
      expect(retried?.level).toBe('info');
      expect(retried?.context).toMatchObject({ reason: 'HTTP 503', permanent: false });
    } finally {
      await hook.close();
    }
  });
});
