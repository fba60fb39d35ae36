/**
 * `tandem/stores`: the task store seam — what a `TaskStore` is (the interfaces a store
 * implements and the errors it reports), the in-memory store, retention, and `openTaskStore`,
 * which opens a store from the descriptions `tandem serve --store` takes and loads a database
 * driver only then. The SQLite and PostgreSQL stores have entry points of their own
 * (`tandem/stores/sqlite`, `tandem/stores/postgres`), so that this one never loads a driver.
 *
 * @example
 * ```ts
 * import { createTaskRuntime } from 'tandem/server';
 * import { MemoryTaskStore } from 'tandem/stores';
 * const runtime = createTaskRuntime({ store: new MemoryTaskStore() });
 * ```
 *
 * Any new export added here becomes public API. Use named exports, not wildcards.
 */

export { MemoryTaskStore } from './stores/memory/memory-task-store.js';
export type { MemoryTaskStoreOptions } from './stores/memory/memory-task-store.js';
export { InvalidTaskWriteError, StorageError, TaskExistsError } from './protocol/local-errors.js';
export {
  describeTaskStoreSpec,
  openTaskStore,
  parseTaskStoreSpec,
} from './stores/open-task-store.js';
export type { OpenTaskStoreOptions, TaskStoreSpec } from './stores/open-task-store.js';
export { purgeExpiredTasks, startRetention } from './stores/task-retention.js';
export type { RetentionLogger } from './stores/task-retention.js';
export type {
  AppendRequest,
  AppendResult,
  CreateTaskRequest,
  StoredTask,
  TaskChangeFeed,
  TaskChangeListener,
  TaskLeases,
  TaskListCursor,
  TaskListPage,
  TaskListQuery,
  TaskLogEntry,
  OrphanedTask,
  TaskMutation,
  TaskRetention,
  TaskReadScope,
  TaskScope,
  TaskStore,
  TaskStoreTopology,
  TaskViewOptions,
} from './stores/task-store.js';
export type {
  PushConfigPage,
  PushConfigRecord,
  PushDeliveryState,
  PushDeliveryUpdate,
  StoredPushConfig,
  TaskPushStore,
} from './stores/push-store.js';
