/**
 * g. push: N tasks, each with a webhook (an inline config) on a receiver in this process; the
 * deliveries per second and the event-to-webhook latency (the delivered status event's timestamp,
 * written by the server when the event is stored, to its arrival here; same machine, same clock,
 * millisecond resolution), then the same with one more task whose webhook never answers (the
 * others' p99 must not move). Loopback webhooks need `TANDEM_PUSH_ALLOW=127.0.0.1` (the targets
 * set it).
 */

import { createServer } from 'node:http';
import { post, rpcBody, userMessage } from '../lib/json-rpc.mjs';
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

/** Sends `n` echo tasks with a webhook each, `connections` at a time; resolves the failures. */
async function sendWithWebhooks(rpcUrl, n, url, connections) {
  let next = 0;
  let failures = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      const params = {
        message: userMessage(crypto.randomUUID(), 'echo push'),
        configuration: { taskPushNotificationConfig: { url } },
      };
      const answer = await post(rpcUrl, rpcBody('SendMessage', params));
      if (!answer.text.includes('TASK_STATE_COMPLETED')) failures++;
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  return failures;
}

export const push = {
  id: 'g',
  title: (c) =>
    `g. push: ${c.pushTasks.toLocaleString('en')} tasks with a webhook each, then with one dead webhook`,
  appliesTo: ['tandem', 'tandem-sqlite'],
  key: { metric: 'p99Ms', label: 'p99 ms' },
  columns: [
    { metric: 'deliveriesPerSecond', label: 'deliveries/s', format: 'int' },
    { metric: 'p50Ms', label: 'p50 ms', format: 'ms' },
    { metric: 'p99Ms', label: 'p99 ms', format: 'ms' },
    { metric: 'p99DeadMs', label: 'p99 ms, one dead', format: 'ms' },
  ],
  async measure(ctx) {
    const { rpcUrl, cardUrl } = ctx.server;
    // A build from before push (a baseline in an A/B run) would never deliver: say so instead.
    const card = await (await fetch(cardUrl)).json();
    if (card.capabilities?.pushNotifications !== true)
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
      const [p50, p99] = healthy.latencies.quantiles(0.5, 0.99);
      const usage = ctx.sampler.stop();

      const withDead = await receiver();
      failures += await sendWithWebhooks(rpcUrl, 1, dead.url, 1);
      failures += await sendWithWebhooks(rpcUrl, n, withDead.url, ctx.config.connections);
      await withDead.reached(2 * n);
      const [p99Dead] = withDead.latencies.quantiles(0.99);
      await withDead.close();
      return {
        ...usage,
        failures,
        deliveriesPerSecond: healthy.deliveries / seconds,
        p50Ms: p50,
        p99Ms: p99,
        p99DeadMs: p99Dead,
      };
    } finally {
      await Promise.all([healthy.close(), dead.close()]);
    }
  },
};
