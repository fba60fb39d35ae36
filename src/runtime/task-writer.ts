/**
 * The seam between a `TaskRun` and the way its writes reach the store. The run owns the
 * task's state machine, its order of writes (one queue), settling and cancellation; a writer,
 * chosen once per run from what the store declares, decides how an agent's changes are sent:
 * one after another, each waiting for the one before (`SerialWriter`), or ahead of their commit
 * (`PipelinedWriter`, for stores whose appends may be pipelined). Either way a change is published
 * to readers only once stored, in order, and a change refused because the task moved on is
 * rebuilt from the reloaded state and sent again.
 */

import type { Task, TaskState } from '../protocol/generated/types.js';
import type { CreateTaskRequest, TaskLogEntry, TaskStore } from '../stores/task-store.js';
import type { SerialQueue } from './serial-queue.js';
import type { TaskChange } from './task-changes.js';

/** The result of a write: applied, or dropped because the task was canceled or ended elsewhere. */
export type WriteOutcome = 'applied' | 'dropped';

/** Builds a change from the state the task will be in when the change is applied. */
export type ChangeBuilder = (state: TaskState) => TaskChange;

/** A new task's first write, prepared by the run in its turn. */
export interface PreparedCreation {
  readonly request: CreateTaskRequest;
  /** The `SUBMITTED` snapshot, the task's first event. */
  readonly snapshot: Task;
  /** The agent's first change, written with the creation; `undefined` when there is none. */
  readonly change: TaskChange | undefined;
  /** Why the state machine refused the first change; the creation goes ahead without it. */
  readonly refused: Error | undefined;
  /** The task's state once the creation is stored. */
  readonly state: TaskState;
}

/** What a creation resolves: the snapshot once stored, and the outcome of the first change. */
export interface CreationWrite {
  readonly created: Promise<Task>;
  readonly written: Promise<WriteOutcome>;
}

/**
 * What a writer sees of its run: the run's port (`TaskRunPort`), which the run makes for its
 * writer and keeps private, so that nothing else that holds the run can append past its queue.
 */
export interface RunForWriter {
  readonly store: TaskStore;
  readonly taskId: string;
  /** Every store write of the run, in order. */
  readonly queue: SerialQueue;
  /** The seq and state after the last write stored. */
  readonly seq: number;
  readonly storedState: TaskState;
  /** True once the task was canceled or ended elsewhere: agent writes are dropped. */
  readonly stopped: boolean;
  /** The change `build` makes from `state`; throws `InvalidTransitionError` when refused. */
  checkChange(build: ChangeBuilder, state: TaskState): TaskChange;
  /** Appends `change` after the last stored write; false when refused as stale. */
  appendChange(change: TaskChange): Promise<boolean>;
  /** A change sent ahead was stored as event `event`, the log now at `seq`. */
  changeStored(change: TaskChange, event: TaskLogEntry, seq: number): void;
  /** The creation was stored. */
  creationStored(creation: PreparedCreation): void;
  /** After a refused write: reloads seq and state; true when the task has ended meanwhile. */
  reloadAfterConflict(): Promise<boolean>;
}

/** How a run's agent changes reach the store. */
export interface TaskWriter {
  /** The state once every write accepted so far is stored. */
  acceptedState(): TaskState;
  /** Creates the task with what `prepare` builds, in the run's turn. */
  create(prepare: () => PreparedCreation): CreationWrite;
  /** Applies the change `build` makes; rejects with `InvalidTransitionError` when refused. */
  write(build: ChangeBuilder): Promise<WriteOutcome>;
}

export const APPLIED: WriteOutcome = 'applied';
export const DROPPED: Promise<WriteOutcome> = Promise.resolve('dropped');
