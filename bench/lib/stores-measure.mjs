/**
 * The store-independent measurements of `bench/stores.mjs`: filling a store with echo tasks,
 * appending artifact chunks (one task, then 16 at once), and ListTasks pages. Each is bounded by
 * time and count, records every latency (no histogram buckets), and checks what the store
 * answered, so that a store answering the wrong thing fast cannot look good.
 */

import { performance } from 'node:perf_hooks';
import { Samples } from './stats.mjs';
import { SCOPE } from './stores-workload.mjs';

const log = (line) => process.stderr.write(`${line}\n`);

/** p50/p99 of recorded latencies, with their count. */
function latencies(samples) {
  const [p50Ms, p99Ms] = samples.quantiles(0.5, 0.99);
  return { samples: samples.count, p50Ms, p99Ms };
}

/**
 * Stores `config.tasks` echo tasks, `fillConcurrency` at a time, spread round-robin over
 * contexts of `tasksPerContext` tasks (as interleaved conversations are).
 * @returns {Promise<{contexts: string[], seconds: number}>}
 */
export async function fillEchoTasks(writer, config, label) {
  const contexts = Array.from(
    { length: Math.max(1, Math.round(config.tasks / config.tasksPerContext)) },
    () => crypto.randomUUID(),
  );
  const started = performance.now();
  let next = 0;
  let reported = started;
  const worker = async () => {
    for (let i = next++; i < config.tasks; i = next++) {
      await writer.echoTask(contexts[i % contexts.length]);
      if (performance.now() - reported > 5000) {
        reported = performance.now();
        log(
          `  ${label}: ${next.toLocaleString('en')} of ${config.tasks.toLocaleString('en')} tasks`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: config.fillConcurrency }, worker));
  return { contexts, seconds: (performance.now() - started) / 1000 };
}

/**
 * Appends artifact chunks to `streams` tasks at once, each task's appends one after another
 * (as `TaskRun` serializes them), until `appendSeconds` pass, `maxAppends` are written in all,
 * or a task holds `maxChunksPerTask`. Latency is of the store call alone; events/s is over the
 * whole run.
 */
export async function measureAppends(writer, config, streams) {
  const contextId = crypto.randomUUID();
  const tasks = [];
  for (let i = 0; i < streams; i++) {
    tasks.push(await writer.streamingTask(contextId, config.chunkBytes));
  }
  const samples = new Samples();
  const started = performance.now();
  const deadline = started + config.appendSeconds * 1000;
  await Promise.all(
    tasks.map(async (task) => {
      while (
        task.chunks < config.maxChunksPerTask &&
        samples.count < config.maxAppends &&
        performance.now() < deadline
      ) {
        const request = task.nextChunk();
        const t0 = performance.now();
        await task.append(request);
        samples.add(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  for (const task of tasks) await task.complete();
  return {
    tasks: streams,
    appends: samples.count,
    seconds,
    eventsPerSec: samples.count / seconds,
    ...latencies(samples),
  };
}

/**
 * Calls `query` repeatedly for `seconds` (after a short warm-up), checking every answer.
 * @param {() => Promise<import('../../dist/stores/task-store.js').TaskListPage>} query
 * @param {(page: import('../../dist/stores/task-store.js').TaskListPage) => string | undefined} check
 *   undefined when the page is right, else what is wrong
 */
async function timeQuery(query, check, config) {
  for (let i = 0; i < 10; i++) await query();
  const samples = new Samples();
  const deadline = performance.now() + config.listSeconds * 1000;
  while (samples.count < config.listMaxSamples && performance.now() < deadline) {
    const t0 = performance.now();
    const page = await query();
    samples.add(performance.now() - t0);
    const problem = check(page);
    if (problem !== undefined) throw new Error(problem);
  }
  return latencies(samples);
}

/**
 * The cursor of the page that starts `fraction` of the way into a listing, by walking it with
 * the store's own cursors; returns the cursor, the page's index and the id of its first task.
 */
async function walkToDeepPage(store, filter, matching, config) {
  const pages = Math.ceil(matching / config.pageSize);
  const index = Math.min(pages - 1, Math.floor(pages * config.deepFraction));
  let after;
  for (let p = 0; p < index; p++) {
    const page = await store.listTasks(SCOPE, {
      ...filter,
      pageSize: config.pageSize,
      countTotal: false,
      historyLength: 0,
      includeArtifacts: false,
      ...(after === undefined ? {} : { after }),
    });
    if (page.next === undefined) {
      throw new Error(`the listing ended after ${p + 1} pages; ${pages} expected`);
    }
    after = page.next;
  }
  const first = await store.listTasks(SCOPE, {
    ...filter,
    pageSize: 1,
    countTotal: false,
    ...(after === undefined ? {} : { after }),
  });
  return { after, index, firstId: first.tasks[0]?.id };
}

/**
 * ListTasks as the runtime asks for it (`pageSize` 50, whole history, no artifacts): the first
 * page counts the matching tasks, a later page (from a cursor) does not. With and without a
 * context filter. `stored` is how many tasks the store holds, all in `SCOPE`.
 */
export async function measureListTasks(store, config, { stored, contextId }) {
  const listed = (await store.listTasks(SCOPE, { pageSize: 1 })).totalSize;
  if (listed !== stored) throw new Error(`the store lists ${listed} tasks; ${stored} were stored`);
  const contextMatching = (await store.listTasks(SCOPE, { contextId, pageSize: 1 })).totalSize;
  const variants = [
    { metric: 'list-first', filter: {}, matching: stored, deep: false },
    { metric: 'list-first-context', filter: { contextId }, matching: contextMatching, deep: false },
    { metric: 'list-deep', filter: {}, matching: stored, deep: true },
    { metric: 'list-deep-context', filter: { contextId }, matching: contextMatching, deep: true },
  ];
  const rows = [];
  for (const variant of variants) {
    const { filter, matching } = variant;
    const expectedLength = Math.min(config.pageSize, matching);
    let query;
    let check;
    let pageIndex = 0;
    if (!variant.deep) {
      const request = { ...filter, pageSize: config.pageSize, includeArtifacts: false };
      query = () => store.listTasks(SCOPE, request);
      check = (page) =>
        page.tasks.length === expectedLength && page.totalSize === matching
          ? undefined
          : `first page: ${page.tasks.length} tasks of ${page.totalSize} (${expectedLength} of ${matching} expected)`;
    } else {
      const deep = await walkToDeepPage(store, filter, matching, config);
      pageIndex = deep.index;
      const request = {
        ...filter,
        pageSize: config.pageSize,
        includeArtifacts: false,
        countTotal: false,
        ...(deep.after === undefined ? {} : { after: deep.after }),
      };
      const length = Math.min(config.pageSize, matching - pageIndex * config.pageSize);
      query = () => store.listTasks(SCOPE, request);
      check = (page) =>
        page.tasks.length === length &&
        page.tasks[0]?.id === deep.firstId &&
        page.tasks.every((t) => t.history?.length === 1 && t.artifacts === undefined)
          ? undefined
          : `page ${pageIndex + 1}: ${page.tasks.length} tasks starting at ${page.tasks[0]?.id} (${length} starting at ${deep.firstId} expected)`;
    }
    rows.push({
      metric: variant.metric,
      stored,
      matching,
      pageSize: config.pageSize,
      page: pageIndex + 1,
      ...(await timeQuery(query, check, config)),
    });
  }
  return rows;
}
