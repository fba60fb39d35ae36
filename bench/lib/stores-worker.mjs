/**
 * Measures one store in a process of its own (started by `bench/stores.mjs` with
 * `--expose-gc`), so that no store's heap, caches or garbage weigh on another's numbers. It gets
 * `{store, config}` over IPC, answers `{type: 'rows', rows}`, and logs progress on stderr.
 *
 * The order is fixed: the footprint of the empty store, the fill, the footprint of the filled
 * store, ListTasks on it, then appends (which add tasks), then — PostgreSQL only — the
 * cross-replica latencies. A measurement that fails yields a row with its error; the others
 * still run.
 */

import { STORE_LABELS } from './stores-options.mjs';
import { bytesPerTask, openBackend } from './stores-backends.mjs';
import { fillEchoTasks, measureAppends, measureListTasks } from './stores-measure.mjs';
import { measureCrossProcess, measureCrossReplica } from './stores-replica.mjs';
import { createWriter, loadTandem } from './stores-workload.mjs';

const log = (line) => process.stderr.write(`${line}\n`);

/** Runs `measure`, turning a failure into an error row for each metric it was to produce. */
async function attempt(rows, metrics, measure) {
  try {
    const produced = await measure();
    rows.push(...(Array.isArray(produced) ? produced : [produced]));
  } catch (error) {
    log(`  failed: ${error.stack ?? error}`);
    for (const metric of metrics) rows.push({ metric, error: String(error.message ?? error) });
  }
}

async function measureStore(id, config) {
  const label = STORE_LABELS[id];
  const tandem = await loadTandem(id);
  if (id === 'memory') {
    // Compiles the write path (and the compaction of finished tasks) before the empty heap is
    // read, so that the fill measures tasks, not code.
    const scratch = createWriter(tandem, new tandem.MemoryTaskStore());
    for (let i = 0; i < 2000; i++) await scratch.echoTask('warm-up');
  }
  const backend = await openBackend(id, tandem, config);
  const rows = [];
  try {
    const writer = createWriter(tandem, backend.store);
    let fill;
    await attempt(rows, ['bytes-per-task'], async () => {
      const before = await backend.footprint();
      log(`${label}: storing ${config.tasks.toLocaleString('en')} echo tasks`);
      fill = await fillEchoTasks(writer, config, label);
      const after = await backend.footprint();
      return {
        ...bytesPerTask(before, after, config.tasks, backend.measuredAs),
        fillSeconds: fill.seconds,
      };
    });
    const listMetrics = ['list-first', 'list-first-context', 'list-deep', 'list-deep-context'];
    await attempt(rows, listMetrics, async () => {
      if (fill === undefined) throw new Error('the store could not be filled');
      await backend.beforeListing?.();
      log(`${label}: ListTasks at ${config.tasks.toLocaleString('en')} tasks`);
      return measureListTasks(backend.store, config, {
        stored: config.tasks,
        contextId: fill.contexts[0],
      });
    });
    log(`${label}: appends, 1 task, then ${config.concurrentTasks} tasks at once`);
    await attempt(rows, ['append-sequential'], async () => ({
      metric: 'append-sequential',
      ...(await measureAppends(writer, config, 1)),
    }));
    await attempt(rows, ['append-concurrent'], async () => ({
      metric: 'append-concurrent',
      ...(await measureAppends(writer, config, config.concurrentTasks)),
    }));
    if (id === 'postgres') {
      log(`${label}: cross-replica event latency, in one process, then across two`);
      await attempt(rows, ['cross-replica'], () => measureCrossReplica(tandem, writer, config));
      await attempt(rows, ['cross-process'], () => measureCrossProcess(writer, config));
    }
  } finally {
    await backend.close();
  }
  return rows;
}

process.once('message', ({ store, config }) => {
  measureStore(store, config).then(
    (rows) => {
      process.send({ type: 'rows', rows }, () => process.disconnect());
    },
    (error) => {
      process.send({ type: 'error', message: String(error.stack ?? error) }, () =>
        process.disconnect(),
      );
    },
  );
});
