/**
 * Where a request handler made without a shared runtime gets one: a runtime of its own over the
 * store it was given (or the entry point's default store), started at once.
 */

import { UsageError } from '../protocol/local-errors.js';
import type { TaskStore } from '../stores/task-store.js';
import type { Logger } from './logger.js';
import { createTaskRuntime, engineOf, type TaskRuntimeEngine } from './task-runtime.js';

/** The store a handler without a runtime uses: its own, or the entry point's default. */
export function storeOf(
  given: TaskStore | undefined,
  defaultStore: (() => TaskStore) | undefined,
): TaskStore {
  const store = given ?? defaultStore?.();
  if (store === undefined) {
    throw new UsageError(
      'createRequestHandler needs a runtime or a store; import it from tandem/server, which defaults to a MemoryTaskStore',
    );
  }
  return store;
}

/** A runtime of the handler's own over `store`, started at once (closed with the handler). */
export function ownRuntime(store: TaskStore, logger: Logger): TaskRuntimeEngine {
  const runtime = engineOf(createTaskRuntime({ store, logger }));
  runtime.start().catch((error: unknown) => {
    logger.error({ err: error }, 'the task runtime failed to start');
  });
  return runtime;
}
