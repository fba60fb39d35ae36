/**
 * What a new task's first store write holds: the task in `SUBMITTED` state with the user's
 * message (its first event, the snapshot every stream starts with), and the agent's first change
 * applied on top when there is one — a new task and its first update cost one commit, not two.
 */

import type { Message, Task, TaskState } from '../protocol/generated/types.js';
import { applyMutation, projectionOf } from '../protocol/task-projection.js';
import { currentTimestamp } from '../protocol/timestamps.js';
import type {
  CreateTaskRequest,
  PushConfigRecord,
  TaskLogEntry,
  TaskScope,
  TaskTraceContext,
} from '../stores/task-store.js';
import { streamEvent } from './stream-event.js';
import type { TaskChange } from './task-changes.js';

/** A new task's first write. */
export interface TaskCreation {
  /** Event 1 (the snapshot), and event 2 (the first change) if any. */
  readonly events: readonly TaskLogEntry[];
  /** The task as stored: the snapshot with the first change applied. */
  readonly stored: Task;
  /** The task's state once stored. */
  readonly state: TaskState;
}

/** The `SUBMITTED` task a user's first message creates. */
export function submittedTask(taskId: string, contextId: string, userMessage: Message): Task {
  return {
    id: taskId,
    contextId,
    status: { state: 'TASK_STATE_SUBMITTED', timestamp: currentTimestamp() },
    history: [userMessage],
  };
}

/** The first write of `snapshot`, with `change` (already checked) applied if given. */
export function taskCreation(snapshot: Task, change: TaskChange | undefined): TaskCreation {
  const first = streamEvent(1, { task: snapshot });
  if (change === undefined) {
    return { events: [first], stored: snapshot, state: snapshot.status.state };
  }
  return {
    events: [first, streamEvent(2, change.payload)],
    stored: projectionAfter(snapshot, change),
    state: change.state,
  };
}

/** Where a new task is stored, and what is stored with it beside its first write. */
export interface CreationTarget {
  readonly scope: TaskScope;
  /** Push configs stored with the task, in the same write (a message's inline config). */
  readonly pushConfigs: readonly PushConfigRecord[];
  /** The lease the task is created with, when the runtime takes leases on this store. */
  readonly lease: { readonly holder: string; readonly ms: number } | undefined;
  /** The trace context of the call that admitted the task's message, when it was traced. */
  readonly traceContext?: TaskTraceContext | undefined;
}

/** The store request that creates the task of `creation` in `target`. */
export function createTaskRequest(
  target: CreationTarget,
  creation: TaskCreation,
): CreateTaskRequest {
  const { scope, pushConfigs, lease, traceContext } = target;
  const request = {
    scope,
    task: creation.stored,
    events: creation.events,
    ...(pushConfigs.length === 0 ? {} : { pushConfigs }),
    ...(traceContext === undefined ? {} : { traceContext }),
  };
  return lease === undefined
    ? request
    : { ...request, leaseHolder: lease.holder, leaseMs: lease.ms };
}

/** The task after `change`, in arrays of its own. */
function projectionAfter(task: Task, change: TaskChange): Task {
  const projection = projectionOf(task);
  for (const mutation of change.mutations) applyMutation(projection, mutation);
  const after: Task = {
    id: task.id,
    contextId: projection.contextId,
    status: projection.status,
    history: projection.history,
  };
  if (projection.artifacts.length > 0) after.artifacts = projection.artifacts;
  return after;
}
