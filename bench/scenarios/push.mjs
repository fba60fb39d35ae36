/**
 * g. push: N tasks, each with a webhook (an inline config) on a receiver in this process. First
 * as fast as 8 connections go, for the deliveries per second (the server saturated, so the
 * latency then is mostly queueing); then at a steady rate well below that, open loop, for the
 * event-to-webhook latency (the delivered status event's timestamp, written by the server when
 * the event is stored, to its arrival here; same machine, same clock, millisecond resolution);
 * then at that rate again with one more task whose webhook never answers (the others' p99 must
 * not move). Loopback webhooks need `TANDEM_PUSH_ALLOW=127.0.0.1` (the targets set it).
 * g-pending. the server's memory while N and then M tasks' deliveries are pending, on a webhook
 * that never answers: what each pending delivery costs in RSS.
 */

import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { post, rpcBody, userMessage } from '../lib/json-rpc.mjs';
import { rssBytes } from '../lib/proc-sampler.mjs';
import { Samples } from '../lib/stats.mjs';

/** A receiver on loopback that records each delivery's latency; `hang` never answers. */
async function receiver({ hang = false } = {}) {
  const latencies = new Samples();
  let deliveries = 0;
  const waiters = [];
  const held = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      if (hang) {
        held.push(res);
        return;
      }
      const now = Date.now();
      const event = JSON.parse(body);
      const stamp = event.statusUpdate?.status.timestamp ?? event.task?.status.timestamp;
      if (event.statusUpdate !== undefined && stamp !== undefined)
        latencies.add(now - Date.parse(stamp));
      deliveries++;
      res.writeHead(204).end();
      for (const waiter of [...waiters]) {
        if (deliveries < waiter.n) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    latencies,
    get deliveries() {
      return deliveries;
    },
    reached: (n) =>
      deliveries >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve })),
    close: () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Whether the server delivers push notifications at all (a baseline from before push does not). */
async function deliversPush(cardUrl) {
  const card = await (await fetch(cardUrl)).json();
  return card.capabilities?.pushNotifications === true;
}

/** One echo task with a webhook on `url`; resolves 1 for a failure, 0 otherwise. */
async function sendWithWebhook(rpcUrl, url) {
  const params = {
    message: userMessage(crypto.randomUUID(), 'echo push'),
    configuration: { taskPushNotificationConfig: { url } },
  };
  const answer = await post(rpcUrl, rpcBody('SendMessage', params));
  return answer.text.includes('TASK_STATE_COMPLETED') ? 0 : 1;
}

/** Sends `n` echo tasks with a webhook each, `connections` at a time; resolves the failures. */
async function sendWithWebhooks(rpcUrl, n, url, connections) {
  let next = 0;
  let failures = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      failures += await sendWithWebhook(rpcUrl, url);
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  return failures;
}

/**
 * Sends `n` echo tasks with a webhook each, `rate` per second on a fixed schedule whatever the
 * answers' pace (open loop, so that a slow answer does not hide as a slower rate).
 */
async function sendPaced(rpcUrl, n, url, rate) {
  const started = performance.now();
  const answers = [];
  for (let i = 0; i < n; i++) {
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    answers.push(sendWithWebhook(rpcUrl, url));
  }
  const failures = await Promise.all(answers);
  return failures.reduce((sum, failed) => sum + failed, 0);
}

export const push = {
  id: 'g',
  title: (c) =>
    `g. push: ${c.pushTasks.toLocaleString('en')} tasks with a webhook each, at full speed, then at ${c.pushRate} tasks/s, then with one dead webhook`,
  appliesTo: ['tandem', 'tandem-sqlite'],
  key: { metric: 'p99Ms', label: 'p99 ms' },
  columns: [
    { metric: 'deliveriesPerSecond', label: 'deliveries/s', format: 'int' },
    { metric: 'p99SaturatedMs', label: 'p99 ms, full speed', format: 'ms' },
    { metric: 'p50Ms', label: 'p50 ms', format: 'ms' },
    { metric: 'p99Ms', label: 'p99 ms', format: 'ms' },
    { metric: 'p99DeadMs', label: 'p99 ms, one dead', format: 'ms' },
  ],
  async measure(ctx) {
    const { rpcUrl, cardUrl } = ctx.server;
    // A build from before push (a baseline in an A/B run) would never deliver: say so instead.
    if (!(await deliversPush(cardUrl)))
      return { unavailable: 'this build does not deliver push notifications' };
    const n = ctx.config.pushTasks;
    const healthy = await receiver();
    const dead = await receiver({ hang: true });
    try {
      ctx.sampler.start();
      const started = performance.now();
      // Each echo task's deliveries: its Task snapshot and its final status, at least.
      let failures = await sendWithWebhooks(rpcUrl, n, healthy.url, ctx.config.connections);
      await healthy.reached(2 * n);
      const seconds = (performance.now() - started) / 1000;
      const [p99Saturated] = healthy.latencies.quantiles(0.99);
      const usage = ctx.sampler.stop();

      const { pushRate } = ctx.config;
      const paced = await receiver();
      failures += await sendPaced(rpcUrl, n, paced.url, pushRate);
      await paced.reached(2 * n);
      const [p50, p99] = paced.latencies.quantiles(0.5, 0.99);
      await paced.close();

      const withDead = await receiver();
      failures += await sendWithWebhooks(rpcUrl, 1, dead.url, 1);
      failures += await sendPaced(rpcUrl, n, withDead.url, pushRate);
      await withDead.reached(2 * n);
      const [p99Dead] = withDead.latencies.quantiles(0.99);
      await withDead.close();
      return {
        ...usage,
        failures,
        deliveriesPerSecond: healthy.deliveries / seconds,
        p99SaturatedMs: p99Saturated,
        p50Ms: p50,
        p99Ms: p99,
        p99DeadMs: p99Dead,
      };
    } finally {
      await Promise.all([healthy.close(), dead.close()]);
    }
  },
};

export const pushPending = {
  id: 'g-pending',
  title: (c) =>
    `g-pending. RSS with the deliveries of ${c.pushPending.map((n) => n.toLocaleString('en')).join(' and ')} tasks pending (a webhook that never answers)`,
  appliesTo: ['tandem', 'tandem-sqlite'],
  key: { metric: 'bytesPerPending', label: 'bytes/task pending' },
  columns: [
    { metric: 'rssFirstMiB', label: 'RSS 1st MiB', format: 'dec1' },
    { metric: 'rssSecondMiB', label: 'RSS 2nd MiB', format: 'dec1' },
    { metric: 'bytesPerPending', label: 'bytes/task pending', format: 'int' },
  ],
  /**
   * Each task's deliveries (its Task snapshot and its final status) stay pending: the webhook
   * holds every request open, so each attempt ends in the server's timeout and a retry. RSS is
   * read after a settle, as in e; the bytes per task are the growth between the two readings
   * over the tasks in between, so the delivery machinery's own, bounded memory cancels out and
   * what remains is what the store keeps per task and pending delivery.
   */
  async measure(ctx) {
    const { rpcUrl, cardUrl, pid } = ctx.server;
    if (!(await deliversPush(cardUrl)))
      return { unavailable: 'this build does not deliver push notifications' };
    const [first, second] = ctx.config.pushPending;
    const { connections, settleMs } = ctx.config;
    const dead = await receiver({ hang: true });
    try {
      ctx.sampler.start();
      let failures = await sendWithWebhooks(rpcUrl, first, dead.url, connections);
      await sleep(settleMs);
      const rssFirst = rssBytes(pid);
      failures += await sendWithWebhooks(rpcUrl, second - first, dead.url, connections);
      await sleep(settleMs);
      const rssSecond = rssBytes(pid);
      const usage = ctx.sampler.stop();
      return {
        ...usage,
        failures,
        rssFirstMiB: rssFirst / 2 ** 20,
        rssSecondMiB: rssSecond / 2 ** 20,
        bytesPerPending: (rssSecond - rssFirst) / (second - first),
      };
    } finally {
      await dead.close();
    }
  },
};
