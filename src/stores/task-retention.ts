/**
 * Retention of finished tasks: off by default; when enabled, tasks that reached a terminal state
 * longer ago than the retention age are deleted, with their history, artifacts and event log, in
 * bounded batches so that a large backlog never holds the store for long.
 */

import type { TaskStore } from './task-store.js';

/** What retention logs. Structural, so that stores do not depend on the runtime's logger. */
export interface RetentionLogger {
  info(context: object, message?: string): void;
  error(context: object, message?: string): void;
}

/** Deletes tasks finished before `now - maxAgeMs`, `batchSize` at a time. Returns the count. */
export async function purgeExpiredTasks(
  store: TaskStore,
  maxAgeMs: number,
  batchSize = 500,
): Promise<number> {
  const before = Date.now() - maxAgeMs;
  let total = 0;
  for (;;) {
    const purged = await store.retention.purgeTerminalTasks(before, batchSize);
    total += purged;
    if (purged < batchSize) return total;
    // Let other work in between batches.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Runs {@link purgeExpiredTasks} now and then every `min(maxAgeMs / 10, 1 h)` (at least every
 * minute). Returns the function that stops it.
 */
export function startRetention(
  store: TaskStore,
  maxAgeMs: number,
  logger: RetentionLogger,
): () => void {
  let running = false;
  const sweep = (): void => {
    if (running) return;
    running = true;
    purgeExpiredTasks(store, maxAgeMs)
      .then((purged) => {
        if (purged > 0) logger.info({ purged, maxAgeMs }, 'purged finished tasks');
      })
      .catch((error: unknown) => logger.error({ err: error }, 'task retention failed'))
      .finally(() => {
        running = false;
      });
  };
  sweep();
  const timer = setInterval(sweep, Math.max(60_000, Math.min(maxAgeMs / 10, 3_600_000)));
  timer.unref();
  return () => clearInterval(timer);
}
