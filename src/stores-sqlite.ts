/**
 * `tandem/stores/sqlite`: the SQLite task store, the default of `tandem serve` — tasks in one
 * file, surviving restarts, for one process. An entry point of its own so that `tandem/server`
 * never loads better-sqlite3 for an application that does not use it.
 *
 * @example
 * ```ts
 * const store = SqliteTaskStore.open({ path: './tandem.db', synchronous: 'FULL' });
 * const runtime = createTaskRuntime({ store });
 * ```
 *
 * Any new export added here becomes public API. Use named exports, not wildcards.
 */

export { DEFAULT_CHECKPOINT_PAGES, SqliteTaskStore } from './stores/sqlite/sqlite-task-store.js';
export type { SqliteTaskStoreOptions } from './stores/sqlite/sqlite-task-store.js';
