/** Reading a task on behalf of a caller, with the error every operation gives for an unknown one. */

import { TaskNotFoundError } from '../protocol/errors.js';
import type { StoredTask, TaskReadScope, TaskStore } from '../stores/task-store.js';

/**
 * Reads a task visible in `scope`, or throws `TaskNotFoundError` — the same error whether the
 * task does not exist or belongs to someone else (spec 3.3.2: never reveal other callers' tasks).
 */
export async function readTask(
  store: TaskStore,
  scope: TaskReadScope,
  taskId: string,
  historyLength?: number,
): Promise<StoredTask> {
  const stored = await store.getTask(
    scope,
    taskId,
    historyLength === undefined ? undefined : { historyLength },
  );
  if (stored === undefined) {
    throw new TaskNotFoundError(`Task ${taskId} was not found`, { metadata: { taskId } });
  }
  return stored;
}
