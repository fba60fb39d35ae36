/**
 * Push notifications over every binding × store: the four config operations (generated ids,
 * pagination, idempotent delete, scoping to the task's owner), inline configs in SendMessage,
 * and delivery to real webhook receivers on loopback — in order, with credentials, retried after
 * 5xx, given up on after a 400, stopped by delete, and never to a refused destination.
 */

import { afterEach, expect, it } from 'vitest';
import {
  InvalidParamsError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '../../src/index.js';
import type { Authenticator } from '../../src/server.js';
import { getPushDeliveryStatus } from '../../src/client.js';
import { testAgent } from '../support/agents.js';
import { rejection, violatedFields } from '../support/a2a-errors.js';
import { describeBehaviour } from '../support/behaviour-env.js';
import { TAG_HEADER } from '../support/drivers/a2a-driver.js';
import { send } from '../support/messages.js';
import { pollUntil, within } from '../support/sync.js';
import {
  deliveredSeqs,
  payloadKinds,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../support/webhook-receiver.js';

/** Callers tagged `bob...` are bob; everyone else is alice. */
const twoPrincipals: Authenticator = ({ headers }) => ({
  id: headers.get(TAG_HEADER)?.startsWith('bob') === true ? 'bob' : 'alice',
  anonymous: false,
});

/** Host names the test resolver answers: one public, one that rebinds to loopback. */
const names = new Map<string, string>([
  ['public.test', '93.184.216.34'],
  ['private.test', '10.0.0.7'],
]);
const testResolver = (hostname: string) => {
  const address = names.get(hostname);
  if (address === undefined) {
    return Promise.reject(Object.assign(new Error(`${hostname} not found`), { code: 'ENOTFOUND' }));
  }
  return Promise.resolve([{ address, family: address.includes(':') ? 6 : 4 }]);
};

describeBehaviour('push notifications', (env) => {
  const receivers: WebhookReceiver[] = [];
  const receiver = async (): Promise<WebhookReceiver> => {
    const started = await startWebhookReceiver();
    receivers.push(started);
    return started;
  };
  const serve = () =>
    env.serve(testAgent, {
      push: env.push({ resolver: testResolver }),
      http: { authenticate: twoPrincipals },
    });

  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  it('says pushNotifications: true, creates configs with generated ids, gets, lists in pages and deletes idempotently', async () => {
    const server = await serve();
    const { agent } = server;
    const card = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as {
      capabilities: { pushNotifications?: boolean };
    };
    expect(card.capabilities.pushNotifications).toBe(true);
    const task = await agent.sendTask(send('ask'));
    const hook = await receiver();
    const created = await agent.createTaskPushNotificationConfig({
      taskId: task.id,
      url: hook.url,
      token: 'tok-1',
      authentication: { scheme: 'Bearer', credentials: 'secret-1' },
    });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created).toMatchObject({ taskId: task.id, url: hook.url, token: 'tok-1' });
    const named = await agent.createTaskPushNotificationConfig({
      taskId: task.id,
      id: 'b-named',
      url: hook.url,
    });
    expect(named.id).toBe('b-named');
    await agent.createTaskPushNotificationConfig({ taskId: task.id, id: 'a-named', url: hook.url });
    expect(
      await agent.getTaskPushNotificationConfig({ taskId: task.id, id: created.id ?? '' }),
    ).toEqual(created);

    const first = await agent.listTaskPushNotificationConfigs({ taskId: task.id, pageSize: 2 });
    expect(first.configs).toHaveLength(2);
    expect(first.nextPageToken).toBeTruthy();
    const second = await agent.listTaskPushNotificationConfigs({
      taskId: task.id,
      pageSize: 2,
      pageToken: first.nextPageToken ?? '',
    });
    expect(second.nextPageToken ?? '').toBe('');
    const ids = [...(first.configs ?? []), ...(second.configs ?? [])].map((c) => c.id).sort();
    expect(ids).toEqual(['a-named', 'b-named', created.id].sort());
    const badToken = await rejection(
      agent.listTaskPushNotificationConfigs({ taskId: task.id, pageToken: 'bm90IG91cnM' }),
      InvalidParamsError,
    );
    expect(violatedFields(badToken)).toEqual(['pageToken']);

    await agent.deleteTaskPushNotificationConfig({ taskId: task.id, id: 'b-named' });
    await agent.deleteTaskPushNotificationConfig({ taskId: task.id, id: 'b-named' });
    await rejection(
      agent.getTaskPushNotificationConfig({ taskId: task.id, id: 'b-named' }),
      TaskNotFoundError,
    );
    const after = await agent.listTaskPushNotificationConfigs({ taskId: task.id });
    expect((after.configs ?? []).map((c) => c.id).sort()).toEqual(['a-named', created.id].sort());
    for (const call of [
      () => agent.createTaskPushNotificationConfig({ taskId: 'no-such-task', url: hook.url }),
      () => agent.listTaskPushNotificationConfigs({ taskId: 'no-such-task' }),
      () => agent.deleteTaskPushNotificationConfig({ taskId: 'no-such-task', id: 'x' }),
      () => agent.getTaskPushNotificationConfig({ taskId: 'no-such-task', id: 'x' }),
    ]) {
      await rejection(call(), TaskNotFoundError);
    }
  });

  it('keeps configs invisible to other principals: their task and its configs answer TaskNotFound', async () => {
    const { agent } = await serve();
    const hook = await receiver();
    const task = await agent.sendTask(send('ask'), { tag: 'alice-1' });
    const config = await agent.createTaskPushNotificationConfig(
      { taskId: task.id, id: 'mine', url: hook.url },
      { tag: 'alice-2' },
    );
    const asBob = (n: number) => ({ tag: `bob-${n}` });
    await rejection(
      agent.getTaskPushNotificationConfig({ taskId: task.id, id: config.id as string }, asBob(1)),
      TaskNotFoundError,
    );
    await rejection(
      agent.listTaskPushNotificationConfigs({ taskId: task.id }, asBob(2)),
      TaskNotFoundError,
    );
    await rejection(
      agent.deleteTaskPushNotificationConfig({ taskId: task.id, id: 'mine' }, asBob(3)),
      TaskNotFoundError,
    );
    await rejection(
      agent.createTaskPushNotificationConfig({ taskId: task.id, url: hook.url }, asBob(4)),
      TaskNotFoundError,
    );
    const mine = await agent.listTaskPushNotificationConfigs(
      { taskId: task.id },
      { tag: 'alice-3' },
    );
    expect((mine.configs ?? []).map((c) => c.id)).toEqual(['mine']);
  });

  it('delivers a whole streamed task in order to an inline config, with its credentials and a delivery id', async () => {
    const { agent } = await serve();
    const hook = await receiver();
    const stream = await agent.sendStreamingMessage(
      send(
        'stream 3',
        {},
        {
          taskPushNotificationConfig: {
            url: hook.url,
            token: 'notify-token',
            authentication: { scheme: 'Bearer', credentials: 'webhook-secret' },
          },
        },
      ),
    );
    const streamed = await stream.rest();
    await within(
      hook.deliveredCount(streamed.length),
      WAIT_MS,
      `${streamed.length} deliveries, one per streamed event`,
    );
    const kinds = payloadKinds(hook.delivered);
    expect(kinds).toEqual(
      streamed.map(({ response }) =>
        response.statusUpdate !== undefined
          ? `status:${response.statusUpdate.status.state}`
          : response.task !== undefined
            ? 'task'
            : 'artifact',
      ),
    );
    expect(kinds[0]).toBe('task');
    expect(kinds[kinds.length - 1]).toBe('status:TASK_STATE_COMPLETED');
    expect(hook.delivered.map((r) => r.payload)).toEqual(streamed.map((e) => e.response));
    for (const request of hook.delivered) {
      expect(request.method).toBe('POST');
      expect(request.headers['content-type']).toBe('application/a2a+json');
      expect(request.headers.authorization).toBe('Bearer webhook-secret');
      expect(request.headers['x-a2a-notification-token']).toBe('notify-token');
    }
    const ids = hook.delivered.map((r) => r.headers['x-a2a-delivery-id']);
    expect(new Set(ids).size).toBe(ids.length);
    const logged = JSON.stringify(env.logs);
    expect(logged).not.toContain('webhook-secret');
    expect(logged).not.toContain('notify-token');
  });

  it('applies an inline config of a blocking SendMessage to the task it creates, and of a continuing one to that turn', async () => {
    const { agent } = await serve();
    const first = await receiver();
    const task = await agent.sendTask(
      send('ask', {}, { taskPushNotificationConfig: { url: first.url } }),
    );
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    await within(
      first.deliveredCount(2),
      WAIT_MS,
      'the first config: the task and its input-required status',
    );
    expect(payloadKinds(first.delivered)).toEqual(['task', 'status:TASK_STATE_INPUT_REQUIRED']);
    const configs = await agent.listTaskPushNotificationConfigs({ taskId: task.id });
    expect(configs.configs).toHaveLength(1);

    const second = await receiver();
    const done = await agent.sendTask(
      send('Ada', { taskId: task.id }, { taskPushNotificationConfig: { url: second.url } }),
    );
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    // The second config gets this turn's events only; the first one gets them too.
    await pollDelivered(second, 'status:TASK_STATE_COMPLETED', 'the second config, of this turn');
    await pollDelivered(first, 'status:TASK_STATE_COMPLETED', 'the first config, of the task');
    expect(payloadKinds(second.delivered)).not.toContain('task');
  });

  it('retries after 503s and 429 (same delivery id), gives up an event answered 400 and goes on with the next', async () => {
    const { agent } = await serve();
    const hook = await receiver();
    hook.respondWith((_request, index) =>
      index === 0 || index === 1
        ? { status: 503 }
        : index === 2
          ? { status: 429, headers: { 'retry-after': '0' } }
          : index === 3
            ? { status: 400 }
            : { status: 200 },
    );
    const task = await agent.sendTask(
      send('ask', {}, { taskPushNotificationConfig: { url: hook.url } }),
    );
    // task snapshot: 503, 503, 429, then 400 (given up); the input-required status: 200.
    await within(hook.deliveredCount(1), WAIT_MS, 'the first delivery after the retries');
    const ids = hook.requests.map((r) => r.headers['x-a2a-delivery-id']);
    expect(hook.requests.map((r) => r.status)).toEqual([503, 503, 429, 400, 200]);
    expect(new Set(ids.slice(0, 4)).size).toBe(1);
    expect(ids[4]).not.toBe(ids[0]);
    expect(payloadKinds(hook.delivered)).toEqual(['status:TASK_STATE_INPUT_REQUIRED']);
    expect(hook.requests[4]?.payload?.statusUpdate?.taskId).toBe(task.id);
  });

  it('refuses an eleventh config of a task (maxConfigsPerTask, also inline), storing nothing, while replacing one by its id works', async () => {
    const { agent } = await serve();
    const hook = await receiver();
    const task = await agent.sendTask(send('ask'));
    for (let i = 0; i < 10; i++) {
      await agent.createTaskPushNotificationConfig({ taskId: task.id, id: `c${i}`, url: hook.url });
    }
    const limitMessage = `Task ${task.id} already has 10 push notification configs, the most it may (limit maxConfigsPerTask 10); delete one, or replace one by its id`;
    const refused = await rejection(
      agent.createTaskPushNotificationConfig({ taskId: task.id, url: hook.url }),
      UnsupportedOperationError,
    );
    expect(refused.message).toBe(limitMessage);
    const inline = await rejection(
      agent.sendTask(
        send('Ada', { taskId: task.id }, { taskPushNotificationConfig: { url: hook.url } }),
      ),
      UnsupportedOperationError,
    );
    expect(inline.message).toBe(limitMessage);
    // Nothing was stored: no eleventh config, and the refused message did not continue the task.
    const listed = await agent.listTaskPushNotificationConfigs({ taskId: task.id });
    expect((listed.configs ?? []).map((c) => c.id).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `c${i}`).sort(),
    );
    const after = await agent.getTask({ id: task.id });
    expect(after.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(after.history).toHaveLength(task.history?.length ?? 0);
    // A replacement does not count twice, directly or inline.
    await agent.createTaskPushNotificationConfig({ taskId: task.id, id: 'c3', url: hook.url });
    const done = await agent.sendTask(
      send('Ada', { taskId: task.id }, { taskPushNotificationConfig: { id: 'c0', url: hook.url } }),
    );
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    // Deleting one makes room for another.
    await agent.deleteTaskPushNotificationConfig({ taskId: task.id, id: 'c9' });
    await agent.createTaskPushNotificationConfig({ taskId: task.id, id: 'c10', url: hook.url });
    const final = await agent.listTaskPushNotificationConfigs({ taskId: task.id });
    expect(final.configs).toHaveLength(10);
  });

  it('keeps a finished task through retention while its webhook is down, then delivers every event and lets it go', async () => {
    const { agent } = await serve();
    const hook = await receiver();
    let down = true;
    hook.respondWith(() => (down ? { status: 503 } : { status: 200 }));
    const task = await agent.sendTask(
      send('ask', {}, { taskPushNotificationConfig: { id: 'down', url: hook.url } }),
    );
    const done = await agent.sendTask(send('Ada', { taskId: task.id }));
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    await within(hook.received(1), WAIT_MS, 'the first POST');
    // Retention runs while the receiver is down: every finished task is past the cutoff.
    const purgeAll = () => env.taskStore.retention.purgeTerminalTasks(Date.now() + 60_000, 1_000);
    await purgeAll();
    expect((await agent.getTask({ id: task.id })).status.state).toBe('TASK_STATE_COMPLETED');
    down = false;
    await pollDelivered(hook, 'status:TASK_STATE_COMPLETED', 'hook');
    const kinds = payloadKinds(hook.delivered);
    expect(kinds.slice(0, 2)).toEqual(['task', 'status:TASK_STATE_INPUT_REQUIRED']);
    const seqs = deliveredSeqs(hook.delivered);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    // Once everything is delivered, retention deletes the task.
    await pollUntil(async () => {
      await purgeAll();
      try {
        await agent.getTask({ id: task.id });
        return undefined;
      } catch (error) {
        if (error instanceof TaskNotFoundError) return true;
        throw error;
      }
    }, 'the delivered task to be purged');
  });

  it.runIf(env.binding === 'rest')(
    'shows the owner over REST what is pending, the failures and the last error, then the recovery; nobody else',
    async () => {
      const { agent } = await serve();
      const hook = await receiver();
      let accept = false;
      hook.respondWith(() => (accept ? { status: 200 } : { status: 503 }));
      const task = await agent.sendTask(
        send('ask', {}, { taskPushNotificationConfig: { id: 'watched', url: hook.url } }),
      );
      const status = (tag: string, query: { taskId?: string; id?: string; tenant?: string } = {}) =>
        getPushDeliveryStatus(
          agent.url,
          { taskId: task.id, id: 'watched', ...query },
          { headers: { [TAG_HEADER]: tag } },
        );
      await within(hook.received(3), WAIT_MS, 'three POSTs');
      // The third attempt comes after the second failure was recorded.
      const failing = await status('alice-1');
      expect(failing).toMatchObject({ failing: false, lastError: 'HTTP 503' });
      expect(failing.failureCount).toBeGreaterThanOrEqual(2);
      expect(failing.pendingCount).toBeGreaterThan(0);
      expect(failing.lastErrorTime).toMatch(/Z$/);
      for (const refused of [
        () => status('bob-1'),
        () => status('alice-2', { tenant: 'elsewhere' }),
        () => status('alice-3', { id: 'no-such-config' }),
        () => status('alice-4', { taskId: 'no-such-task' }),
      ]) {
        await rejection(refused(), TaskNotFoundError);
      }
      accept = true;
      await pollDelivered(hook, 'status:TASK_STATE_INPUT_REQUIRED', 'hook');
      // The last delivery is recorded just after the receiver answered it: no event to await.
      const recovered = await pollUntil(async () => {
        const now = await status('alice-5');
        return now.pendingCount === 0 ? now : undefined;
      }, 'the last delivery to be recorded');
      expect(recovered).toMatchObject({ pendingCount: 0, failureCount: 0, failing: false });
      expect(recovered.lastSuccessTime).toMatch(/Z$/);
      // The last error stays on record (with its time); the failures are cleared.
      expect(recovered.lastError).toBe('HTTP 503');
    },
  );

  it('stops delivering to a deleted config', async () => {
    const { agent } = await serve();
    const deleted = await receiver();
    const kept = await receiver();
    const task = await agent.sendTask(send('ask'));
    await agent.createTaskPushNotificationConfig({ taskId: task.id, id: 'gone', url: deleted.url });
    await agent.createTaskPushNotificationConfig({ taskId: task.id, id: 'kept', url: kept.url });
    await agent.deleteTaskPushNotificationConfig({ taskId: task.id, id: 'gone' });
    await agent.sendTask(send('Ada', { taskId: task.id }));
    await pollDelivered(kept, 'status:TASK_STATE_COMPLETED', 'kept');
    expect(deleted.requests).toHaveLength(0);
  });

  it('refuses webhook destinations that are not public at creation with InvalidParams on url, and never dials a name that now resolves to one', async () => {
    const { agent } = await serve();
    const task = await agent.sendTask(send('ask'));
    const refused = [
      'ftp://example.com/hook',
      'http://user:pass@example.com/hook',
      'http://localhost:8080/hook',
      'http://app.localhost/hook',
      'http://127.0.0.2/hook',
      'http://2130706434/hook',
      'http://0x7f.0.0.2/hook',
      'http://0177.0.0.2/hook',
      'http://[::1]/hook',
      'http://[::ffff:127.0.0.2]/hook',
      'http://[::ffff:10.0.0.1]/hook',
      'http://[::10.0.0.1]/hook',
      'http://10.1.2.3/hook',
      'http://172.16.0.1/hook',
      'http://192.168.1.1/hook',
      'http://[fd12::1]/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://metadata.google.internal/computeMetadata/v1',
      'http://[fe80::1]/hook',
      'http://100.64.0.1/hook',
      'http://224.0.0.1/hook',
      'http://0.0.0.0/hook',
      'http://255.255.255.255/hook',
      'http://private.test/hook',
    ];
    for (const url of refused) {
      const error = await rejection(
        agent.createTaskPushNotificationConfig({ taskId: task.id, url }),
        InvalidParamsError,
      );
      expect(violatedFields(error), url).toEqual(['url']);
    }
    const inline = await rejection(
      agent.sendMessage(
        send('ask', {}, { taskPushNotificationConfig: { url: 'http://10.0.0.1/' } }),
      ),
      InvalidParamsError,
    );
    expect(violatedFields(inline)).toEqual(['configuration.taskPushNotificationConfig.url']);
    // Accepted: a public name, and one that does not resolve yet (checked when dialled).
    await agent.createTaskPushNotificationConfig({ taskId: task.id, url: 'https://public.test/h' });
    await agent.createTaskPushNotificationConfig({
      taskId: task.id,
      url: 'https://unknown.test/h',
    });
  });

  it('checks the address actually dialled: a name that rebinds to loopback after creation is never reached', async () => {
    const { agent } = await serve();
    const hook = await startWebhookReceiver();
    receivers.push(hook);
    const name = `rebind-${crypto.randomUUID()}.test`;
    names.set(name, '93.184.216.34');
    const task = await agent.sendTask(send('ask'));
    const url = `http://${name}:${hook.port}/hook`;
    await agent.createTaskPushNotificationConfig({ taskId: task.id, id: 'rebind', url });
    names.set(name, '127.0.0.2');
    const refused = env.nextLog(({ context }) => {
      const { configId, reason } = context as { configId?: string; reason?: string };
      return configId === 'rebind' && reason?.includes(`${name} resolves to 127.0.0.2`) === true;
    });
    await agent.sendTask(send('Ada', { taskId: task.id }));
    await refused;
    expect(hook.requests).toHaveLength(0);
  });
});

/** How long a test waits for a webhook POST before it fails naming the step. */
const WAIT_MS = 8_000;

/**
 * Waits until `hook` was delivered an event of `kind`, each delivery bounded: a failure names
 * `what`, the kind awaited and what did arrive.
 */
async function pollDelivered(hook: WebhookReceiver, kind: string, what: string): Promise<void> {
  for (let n = 1; ; n++) {
    await within(
      hook.deliveredCount(n),
      WAIT_MS,
      `${what}: delivery ${n}, waiting for ${kind} (delivered so far: ${payloadKinds(hook.delivered).join(', ') || 'none'})`,
    );
    if (payloadKinds(hook.delivered).includes(kind)) return;
  }
}
