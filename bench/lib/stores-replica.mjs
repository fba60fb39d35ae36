/**
 * Cross-replica event latency on PostgreSQL: replica A appends an artifact chunk, replica B hears
 * of it through `changeFeed.listen` and reads the event with `readEvents` — what a stream open on
 * B does when the task runs on A. Timed from just before A's append call to B holding the event,
 * on the system-wide monotonic clock (`process.hrtime`), so that the same measure works when B is
 * another process. One append at a time: each sample is the latency of an idle pipeline.
 *
 * Two variants: B in this process (a second store with its own pool and listener connection), and
 * B in a child process (`stores-replica-child.mjs`), which adds the delivery to another process.
 */

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Samples } from './stats.mjs';

const SAMPLE_TIMEOUT_MS = 5000;

/** A promise that rejects after `ms` with `message`, clearing its timer when `promise` settles. */
function within(promise, ms, message) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Waiters for "B has event `seq` of task `taskId`", one per task; `deliver` settles them.
 */
function createWaiters() {
  const waiting = new Map();
  return {
    /** @returns {Promise<{t1: bigint, json: string}>} */
    waitFor(taskId, seq) {
      return new Promise((resolve, reject) => waiting.set(taskId, { seq, resolve, reject }));
    },
    /** True when someone waits for this event of this task. */
    wants(taskId, seq) {
      return waiting.get(taskId)?.seq === seq;
    },
    deliver(taskId, seq, outcome) {
      const waiter = waiting.get(taskId);
      if (waiter?.seq !== seq) return;
      waiting.delete(taskId);
      if (outcome instanceof Error) waiter.reject(outcome);
      else waiter.resolve(outcome);
    },
  };
}

/** Appends chunks on A one at a time and times each until B has it. */
async function sample(writer, config, waitFor) {
  const stream = await writer.streamingTask(crypto.randomUUID(), config.chunkBytes);
  const samples = new Samples();
  const deadline = performance.now() + config.replicaSeconds * 1000;
  try {
    while (samples.count < config.replicaMaxSamples && performance.now() < deadline) {
      const request = stream.nextChunk();
      const seq = request.expectedSeq + 1;
      const delivered = waitFor(stream.taskId, seq);
      const t0 = process.hrtime.bigint();
      const event = await stream.append(request);
      const { t1, json } = await within(
        delivered,
        SAMPLE_TIMEOUT_MS,
        `replica B did not have event ${seq} of ${stream.taskId} within ${SAMPLE_TIMEOUT_MS} ms`,
      );
      if (json !== event.json) {
        throw new Error(`replica B read event ${seq} as ${json}; A wrote ${event.json}`);
      }
      samples.add(Number(t1 - t0) / 1e6);
    }
  } finally {
    await stream.complete();
  }
  const [p50Ms, p99Ms] = samples.quantiles(0.5, 0.99);
  return { samples: samples.count, p50Ms, p99Ms };
}

/** B is a second `PostgresTaskStore` in this process: its own pool and listener connection. */
export async function measureCrossReplica(tandem, writer, config) {
  const { connectionString, schema } = config.postgres;
  const replica = await tandem.PostgresTaskStore.open({ connectionString, schema });
  const waiters = createWaiters();
  let resyncs = 0;
  try {
    const stop = await replica.changeFeed.listen({
      onChange(taskId, seq) {
        if (!waiters.wants(taskId, seq)) return;
        replica.readEvents(taskId, seq - 1, 1).then(
          (events) => {
            const t1 = process.hrtime.bigint();
            const event = events?.[0];
            waiters.deliver(
              taskId,
              seq,
              event?.seq === seq
                ? { t1, json: event.json }
                : new Error(`readEvents(${taskId}, ${seq - 1}) answered ${JSON.stringify(events)}`),
            );
          },
          (error) => waiters.deliver(taskId, seq, error),
        );
      },
      onResync() {
        resyncs++;
      },
    });
    const result = await sample(writer, config, waiters.waitFor);
    await stop();
    return { metric: 'cross-replica', ...result, resyncs };
  } finally {
    await replica.close();
  }
}

/** B runs in a child process and reports, over IPC, when it had each event. */
export async function measureCrossProcess(writer, config) {
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL('stores-replica-child.mjs', import.meta.url))],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const waiters = createWaiters();
  let resyncs = 0;
  let ready;
  const isReady = new Promise((resolve, reject) => (ready = { resolve, reject }));
  child.on('message', (message) => {
    switch (message.type) {
      case 'ready':
        ready.resolve();
        break;
      case 'event':
        waiters.deliver(message.taskId, message.seq, {
          t1: BigInt(message.t1),
          json: message.json,
        });
        break;
      case 'resync':
        resyncs++;
        break;
      case 'error':
        ready.reject(new Error(`replica process: ${message.message}`));
        break;
    }
  });
  void exited.then((code) => ready.reject(new Error(`replica process exited (${code})`)));
  try {
    // The connection string goes over IPC rather than the command line, where `ps` shows it.
    child.send({ type: 'start', postgres: config.postgres });
    await within(isReady, 20_000, 'the replica process did not start listening within 20 s');
    const result = await sample(writer, config, waiters.waitFor);
    return { metric: 'cross-process', ...result, resyncs };
  } finally {
    if (child.connected) child.send({ type: 'stop' });
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
}
