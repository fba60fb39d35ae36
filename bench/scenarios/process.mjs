/**
 * Scenarios about the server process itself:
 * e. memory — RSS after N and M completed tasks, and the bytes each stored task adds;
 * f. cold start — from spawning the process to the first successful SendMessage.
 */

import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { post, rpcBody, sendEcho, userMessage } from '../lib/json-rpc.mjs';
import { isCompleted } from '../lib/load.mjs';
import { rssBytes } from '../lib/proc-sampler.mjs';
import { median } from '../lib/stats.mjs';
import { freePort, spawnTarget, stopProcess } from '../lib/targets.mjs';
import { fillTasks } from './request-load.mjs';

export const memory = {
  id: 'e',
  title: (c) =>
    `e. memory: RSS after ${c.memoryTasks.map((n) => n.toLocaleString('en')).join(' and ')} completed tasks`,
  appliesTo: ['floor', 'a2a-js', 'tandem'],
  key: { metric: 'bytesPerTask', label: 'bytes/task' },
  columns: [
    { metric: 'rssStartMiB', label: 'RSS start MiB', format: 'dec1' },
    { metric: 'rssFirstMiB', label: 'RSS 1st MiB', format: 'dec1' },
    { metric: 'rssSecondMiB', label: 'RSS 2nd MiB', format: 'dec1' },
    { metric: 'bytesPerTask', label: 'bytes/task', format: 'int' },
  ],
  /**
   * A target cannot be made to collect garbage from outside, so RSS is read after a short idle
   * settle. The bytes per task are the difference between the two readings divided by the tasks
   * in between: start-up memory and the first tasks' one-off costs (JIT, pools) cancel out.
   */
  async measure(ctx) {
    const [first, second] = ctx.config.memoryTasks;
    const { rpcUrl, pid } = ctx.server;
    const { connections, settleMs } = ctx.config;
    const firstTask = await sendEcho(rpcUrl, 'hi');
    await sleep(settleMs);
    ctx.sampler.start();
    const rssStart = rssBytes(pid);
    let failures = await fillTasks(rpcUrl, first - 1, connections);
    await sleep(settleMs);
    const rssFirst = rssBytes(pid);
    failures += await fillTasks(rpcUrl, second - first, connections);
    await sleep(settleMs);
    const rssSecond = rssBytes(pid);
    const usage = ctx.sampler.stop();
    // Point 6: no eviction during a run — the very first task must still be there.
    const answer = await post(rpcUrl, rpcBody('GetTask', { id: firstTask.id }));
    if (!isCompleted(answer.text)) failures++;
    return {
      ...usage,
      failures,
      rssStartMiB: rssStart / 2 ** 20,
      rssFirstMiB: rssFirst / 2 ** 20,
      rssSecondMiB: rssSecond / 2 ** 20,
      bytesPerTask: (rssSecond - rssFirst) / (second - first),
    };
  },
};

/** Spawns the target and times the first SendMessage that succeeds. */
async function coldStartOnce(target, rpcPath, pinning) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}${rpcPath}`;
  const body = rpcBody('SendMessage', { message: userMessage(crypto.randomUUID(), 'echo hi') });
  const started = performance.now();
  const proc = spawnTarget(target, port, { pinning });
  let exited = false;
  void proc.exited.then(() => (exited = true));
  try {
    while (performance.now() - started < 30_000 && !exited) {
      try {
        const answer = await post(url, body, { timeoutMs: 5000 });
        if (isCompleted(answer.text)) return performance.now() - started;
        throw new Error(`SendMessage answered HTTP ${answer.status}: ${answer.text.slice(0, 200)}`);
      } catch (error) {
        // Refused until the server listens; anything else is a real failure.
        if (error?.code !== 'ECONNREFUSED' && error?.code !== 'ECONNRESET') throw error;
      }
      await sleep(2);
    }
    throw new Error(`${target.label} never answered SendMessage:\n${proc.output()}`);
  } finally {
    await stopProcess(proc);
  }
}

export const coldStart = {
  id: 'f',
  title: (c) =>
    `f. cold start: process spawn to first successful SendMessage, median of ${c.coldStarts}`,
  appliesTo: ['floor', 'a2a-js', 'tandem'],
  spawnsItself: true,
  key: { metric: 'coldStartMs', label: 'ms' },
  columns: [
    { metric: 'coldStartMs', label: 'median ms', format: 'ms' },
    { metric: 'minMs', label: 'min ms', format: 'ms' },
    { metric: 'maxMs', label: 'max ms', format: 'ms' },
  ],
  async measure(ctx) {
    const times = [];
    for (let i = 0; i < ctx.config.coldStarts; i++) {
      times.push(await coldStartOnce(ctx.target, ctx.rpcPath, ctx.pinning));
    }
    return {
      coldStartMs: median(times),
      minMs: Math.min(...times),
      maxMs: Math.max(...times),
      failures: 0,
      runs: times,
    };
  },
};
