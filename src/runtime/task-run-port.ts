/**
 * The write side of one `TaskRun`: the task as this process last stored it (seq, state, and the
 * projection when kept), the one queue of the run's store writes, and what follows a stored write —
 * publishing the event to readers, stopping when the task ended elsewhere, settling. The run makes
 * its port and hands it to its writer only, and keeps it private: whoever holds a run reaches the
 * store through the run's verbs, each checked by the state machine and queued in order, never
 * through an append of its own.
 */

import type { Task, TaskState } from '../protocol/generated/types.js';
import { InvalidTransitionError } from '../protocol/local-errors.js';
import {
  applyMutation,
  projectionOf,
  viewOfTask,
  type MutableTaskProjection,
  type TaskViewOptions,
} from '../protocol/task-projection.js';
import { assertTransition, isTerminalState } from '../protocol/task-state.js';
import type { TaskLogEntry, TaskScope, TaskStore } from '../stores/task-store.js';
import { TaskRunMetrics } from '../telemetry/task-metrics.js';
import type { Logger } from './logger.js';
import { RunSettling } from './run-settling.js';
import { SerialQueue } from './serial-queue.js';
import { streamEvent } from './stream-event.js';
import type { TaskBudget } from './task-content-limits.js';
import { targetStateOf, type TaskChange } from './task-changes.js';
import type { TaskEventHub } from './task-event-hub.js';
import type { ChangeBuilder, PreparedCreation, RunForWriter } from './task-writer.js';

/** What a run needs from the runtime around it. */
export interface TaskRunDependencies {
  readonly store: TaskStore;
  readonly hub: TaskEventHub;
  readonly logger: Logger;
  /** The lease a new task is created with: this process holds it while the task runs. */
  readonly lease?: { readonly holder: string; readonly ms: number };
}

/** Where a run starts: an existing task (its last seq and state) or a task yet to create. */
export interface TaskRunInit {
  readonly scope: TaskScope;
  readonly taskId: string;
  readonly contextId: string;
  /** 0 for a task that does not exist yet. */
  readonly seq: number;
  readonly state: TaskState;
}

/** The stored state of one run and its store writes; held by the run and its writer only. */
export class TaskRunPort implements RunForWriter {
  readonly store: TaskStore;
  readonly taskId: string;
  readonly queue = new SerialQueue();
  readonly settling = new RunSettling();
  readonly #deps: TaskRunDependencies;
  readonly #scope: TaskScope;
  #seq: number;
  #state: TaskState;
  #stopped = false;
  /** The task as stored, when kept (see {@link keepProjection}). */
  #projection: MutableTaskProjection | undefined;
  #keepsProjection = false;
  /** What the task may still hold (see `task-content-limits.ts`); unlimited when unset. */
  #budget: TaskBudget | undefined;
  /** The task metrics of the run (telemetry); the runtime ends them with the run. */
  readonly metrics: TaskRunMetrics;

  constructor(deps: TaskRunDependencies, init: TaskRunInit) {
    this.#deps = deps;
    this.#scope = init.scope;
    this.store = deps.store;
    this.taskId = init.taskId;
    this.#seq = init.seq;
    this.#state = init.state;
    this.metrics = new TaskRunMetrics(init.scope.agent, init.taskId);
    if (init.seq > 0) this.metrics.state(init.state);
  }

  get seq(): number {
    return this.#seq;
  }

  get storedState(): TaskState {
    return this.#state;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  /** Stops the run's writes for good and fires its abort signal. */
  stop(): void {
    this.#stopped = true;
    this.settling.abort();
    this.checkSettled();
  }

  /** Settles the run if it is over (see `run-settling.ts`). */
  checkSettled(): void {
    this.settling.check(this.#state, this.#stopped);
  }

  /** Resolves once the run is settled. */
  untilSettled(): Promise<void> {
    return this.settling.untilSettled(this.#state, this.#stopped);
  }

  /** Keeps the task as stored in memory from its creation on; only for a task yet to create. */
  keepProjection(): void {
    this.#keepsProjection = this.#seq === 0 && this.store.topology === 'exclusive';
  }

  /** The task as stored, cut to `view`, if kept; `undefined` otherwise. */
  viewOf(view: TaskViewOptions): Task | undefined {
    return this.#projection === undefined ? undefined : viewOfTask(this.#projection, view);
  }

  /** Limits what the changes checked from now on may add to the task. */
  limitContent(budget: TaskBudget): void {
    this.#budget = budget;
  }

  /**
   * The change `build` makes from `state`; throws when the machine forbids it, or when it would
   * take the task past its content limits.
   */
  checkChange(build: ChangeBuilder, state: TaskState): TaskChange {
    const change = build(state);
    const target = targetStateOf(change);
    if (target !== undefined) assertTransition(state, target);
    else if (isTerminalState(state)) {
      throw new InvalidTransitionError(
        state,
        state,
        `Task ${this.taskId} is ${state}; it cannot receive artifacts any more`,
      );
    }
    this.#budget?.admit(change, this.taskId);
    return change;
  }

  creationStored(creation: PreparedCreation): void {
    const { events } = creation.request;
    if (this.#keepsProjection) this.#projection = projectionOf(creation.request.task);
    this.#seq = events.length;
    this.#state = creation.state;
    this.metrics.state(creation.state);
    for (const event of events) this.#deps.hub.publish(this.taskId, event);
    this.checkSettled();
  }

  changeStored(change: TaskChange, event: TaskLogEntry, seq: number): void {
    const projection = this.#projection;
    if (projection !== undefined) {
      for (const mutation of change.mutations) applyMutation(projection, mutation);
    }
    this.#seq = seq;
    this.#state = change.state;
    this.metrics.state(change.state);
    this.#deps.hub.publish(this.taskId, event);
    this.checkSettled();
  }

  appendChange(change: TaskChange): Promise<boolean> {
    const event = streamEvent(this.#seq + 1, change.payload);
    return this.store
      .append({
        taskId: this.taskId,
        expectedSeq: this.#seq,
        events: [event],
        mutations: change.mutations,
      })
      .then((result) => {
        if (!result.ok) return false;
        this.changeStored(change, event, result.seq);
        return true;
      });
  }

  async reloadAfterConflict(): Promise<boolean> {
    const stored = await this.store.getTask(this.#scope, this.taskId, {
      historyLength: 0,
      includeArtifacts: false,
    });
    if (stored === undefined) {
      this.stop();
      this.#deps.logger.warn({ taskId: this.taskId }, 'task vanished while running');
      return true;
    }
    // Another process wrote: what the run kept no longer is the task as stored.
    if (stored.seq !== this.#seq) this.#projection = undefined;
    this.#seq = stored.seq;
    this.#state = stored.state;
    this.metrics.state(stored.state);
    if (!isTerminalState(stored.state)) {
      this.checkSettled();
      return false;
    }
    this.stop();
    return true;
  }
}
