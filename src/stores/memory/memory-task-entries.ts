/**
 * The two forms of a task in the {@link MemoryTaskStore}: live — its projection as objects and its
 * whole event log — while it may change or finished recently, then compact — the JSON of its final
 * projection and the few scalars that listing and reading need — once its log is no longer kept.
 */

import type { StreamResponse, Task, TaskState } from '../../protocol/generated/types.js';
import { viewOfTask, type MutableTaskProjection } from '../../protocol/task-projection.js';
import type { OrderKey } from './task-order-index.js';
import type { TaskScope, TaskTraceContext, TaskViewOptions } from '../task-store.js';

/** A task that may still change, or finished recently: full projection and log. */
export interface LiveTask extends MutableTaskProjection, OrderKey {
  readonly compact: false;
  readonly scope: TaskScope;
  readonly scopeKey: string;
  statusTime: number;
  seq: number;
  /** The payload of every event, in order: event `seq` is at index `seq - 1`. */
  readonly log: StreamResponse[];
  leaseHolder: string | undefined;
  leaseExpiresAt: number;
  /**
   * The JSON of the final projection, made when the task finishes — while its objects are still
   * in the CPU cache, several times cheaper than when it is compacted later.
   */
  json: string | undefined;
  /** The trace context it was created in, when it was traced. */
  readonly traceContext: TaskTraceContext | undefined;
}

/** A finished task whose log is no longer kept: the JSON of its final projection. */
export interface CompactTask extends OrderKey {
  readonly compact: true;
  readonly scope: TaskScope;
  readonly scopeKey: string;
  readonly contextId: string;
  readonly statusTime: number;
  readonly seq: number;
  readonly state: TaskState;
  readonly json: string;
  readonly traceContext: TaskTraceContext | undefined;
}

/** How the memory store keeps a task. */
export type StoredEntry = LiveTask | CompactTask;

/** The JSON of a task's full projection; its own arrays serialize as they are, without copies. */
export function projectionJson(task: LiveTask): string {
  const { id, contextId, status, artifacts, history, metadata } = task;
  return JSON.stringify(
    metadata === undefined
      ? { id, contextId, status, artifacts, history }
      : { id, contextId, status, artifacts, history, metadata },
  );
}

/** The state of a task, live or compact. */
export function stateOf(entry: StoredEntry): TaskState {
  return entry.compact ? entry.state : entry.status.state;
}

/** Whether a view is the whole projection, as the task's stored JSON holds it. */
export function isFullView(view: TaskViewOptions | undefined): boolean {
  return (
    view === undefined || (view.historyLength === undefined && view.includeArtifacts !== false)
  );
}

/** The task a read answers, cut to `view`; a compact task is parsed back from its JSON. */
export function viewOf(entry: StoredEntry, view: TaskViewOptions | undefined): Task {
  if (!entry.compact) return viewOfTask(entry, view);
  const task = JSON.parse(entry.json) as Task;
  return viewOfTask(
    {
      id: task.id,
      contextId: entry.contextId,
      status: task.status,
      history: task.history ?? [],
      artifacts: task.artifacts ?? [],
      metadata: task.metadata,
    },
    view,
  );
}

/** The compact form of a finished live task. */
export function compactEntry(task: LiveTask): CompactTask {
  return {
    compact: true,
    id: task.id,
    scope: task.scope,
    scopeKey: task.scopeKey,
    contextId: task.contextId,
    statusTime: task.statusTime,
    seq: task.seq,
    state: task.status.state,
    json: task.json ?? projectionJson(task),
    traceContext: task.traceContext,
  };
}
