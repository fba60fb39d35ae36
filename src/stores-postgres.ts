/**
 * `tandem/stores/postgres`: the PostgreSQL task store, for several replicas of an agent sharing
 * their tasks. An entry point of its own so that `tandem/server` never loads pg for an
 * application that does not use it.
 *
 * @example
 * ```ts
 * const store = await PostgresTaskStore.open({ connectionString, schema: 'tandem' });
 * const runtime = createTaskRuntime({ store });
 * ```
 *
 * Any new export added here becomes public API. Use named exports, not wildcards.
 */

export { PostgresTaskStore } from './stores/postgres/postgres-task-store.js';
export type { PostgresTaskStoreOptions } from './stores/postgres/postgres-task-store.js';
export type { PostgresErrorHandler } from './stores/postgres/postgres-database.js';
