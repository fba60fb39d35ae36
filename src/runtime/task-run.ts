/**
 * One task while this process works on it: the only writer of the task here. Writes are applied
 * strictly one after another — check the transition, append the event and its mutations in one
 * conditional store write, then publish to readers — so that every reader sees the same order and
 * the stored projection always matches the log. How an agent's changes are sent is the business
 * of the run's writer (`task-writer.ts`), chosen once from what the store declares.
 *
 * Cancellation wins over the agent: once `cancel()` is called, writes the agent has queued or
 * makes later are dropped (they resolve without effect) — except those already sent ahead, which
 * are stored before the cancellation — and the task ends CANCELED even if the agent ignores its
 * abort signal. A conditional write that finds the task changed by someone else (another replica)
 * reloads the task; if it has ended meanwhile, the run stops writing too.
 *
 * Runs are made by the `TaskRuntime` only, which keeps the registry of the runs of this process.
 */

import type { Message, Task, TaskState } from '../protocol/generated/types.js';
import { InvalidTransitionError, asError } from '../protocol/local-errors.js';
import {
  applyMutation,
  projectionOf,
  viewOfTask,
  type MutableTaskProjection,
  type TaskViewOptions,
} from '../protocol/task-projection.js';
import {
  assertTransition,
  isFinalOrInterruptedState,
  isInterruptedState,
  isTerminalState,
} from '../protocol/task-state.js';
import type { PushConfigRecord, TaskLogEntry, TaskScope, TaskStore } from '../stores/task-store.js';
import type { TaskBudget } from './task-content-limits.js';
import type { Logger } from './logger.js';
import { PipelinedWriter } from './pipelined-writer.js';
import { SerialQueue } from './serial-queue.js';
import { SerialWriter } from './serial-writer.js';
import { streamEvent } from './stream-event.js';
import { resumeChange, statusChange, targetStateOf, type TaskChange } from './task-changes.js';
import { createTaskRequest, submittedTask, taskCreation } from './task-creation.js';
import type { TaskEventHub } from './task-event-hub.js';
import type {
  ChangeBuilder,
  CreationWrite,
  PreparedCreation,
  RunForWriter,
  TaskWriter,
  WriteOutcome,
} from './task-writer.js';

export type { WriteOutcome } from './task-writer.js';

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

const ignore = (): void => {};

/** Shared by runs without push configs (most): no empty array per run. */
const NO_PUSH_CONFIGS: readonly PushConfigRecord[] = Object.freeze([]);

/**
 * The serialized writer of one task. The members marked "for the writer" implement
 * {@link RunForWriter}: the run's writer calls them, nothing else does.
 */
export class TaskRun implements RunForWriter {
  readonly scope: TaskScope;
  readonly taskId: string;
  readonly contextId: string;
  /** For the writer: where the task lives. */
  readonly store: TaskStore;
  /** For the writer: every store write of the run, applied one after another. */
  readonly queue = new SerialQueue();
  readonly #deps: TaskRunDependencies;
  #seq: number;
  #state: TaskState;
  readonly #writer: TaskWriter;
  #stopped = false;
  /** A cancel is queued: the run settles when its CANCELED status is stored, not before. */
  #cancelPending = 0;
  // Created on demand: most executions never look at their signal.
  #controller: AbortController | undefined;
  #aborted = false;
  #settled: { promise: Promise<void>; resolve: () => void } | undefined;
  /** The task as stored, when kept (see {@link keepProjection}). */
  #projection: MutableTaskProjection | undefined;
  #keepsProjection = false;
  /** What the task may still hold (see `task-content-limits.ts`); unlimited when unset. */
  #budget: TaskBudget | undefined;
  #pushConfigs: readonly PushConfigRecord[] = NO_PUSH_CONFIGS;

  constructor(deps: TaskRunDependencies, init: TaskRunInit) {
    this.#deps = deps;
    this.store = deps.store;
    this.scope = init.scope;
    this.taskId = init.taskId;
    this.contextId = init.contextId;
    this.#seq = init.seq;
    this.#state = init.state;
    this.#writer = deps.store.pipelinedAppends ? new PipelinedWriter(this) : new SerialWriter(this);
  }

  /**
   * The state once every write accepted so far is stored: the stored state, or ahead of it while
   * changes sent ahead wait for their commit.
   */
  get acceptedState(): TaskState {
    return this.#writer.acceptedState();
  }

  /** The sequence number of the last stored event (0 before the task is created). */
  get seq(): number {
    return this.#seq;
  }

  /** For the writer: the state after the last stored write (see {@link acceptedState}). */
  get storedState(): TaskState {
    return this.#state;
  }

  /** True once the task was canceled or ended by another writer: agent writes are dropped. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** Fires when the task is canceled (here or elsewhere) or {@link abort} is called. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort();
    }
    return this.#controller.signal;
  }

  /** Fires the abort signal without changing the task (server shutdown). */
  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#controller?.abort();
  }

  /**
   * Resolves once the task is terminal or interrupted, or the run stopped: where a blocking
   * `SendMessage` returns.
   */
  untilSettled(): Promise<void> {
    if (this.#settled === undefined) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.#settled = { promise, resolve };
      this.#checkSettled();
    }
    return this.#settled.promise;
  }

  #checkSettled(): void {
    if (this.#settled === undefined) return;
    if (isFinalOrInterruptedState(this.#state) || (this.#stopped && this.#cancelPending === 0)) {
      this.#settled.resolve();
    }
  }

  #stop(): void {
    this.#stopped = true;
    this.abort();
    this.#checkSettled();
  }

  /** Resolves when every write queued so far has settled (succeeded or failed). */
  writesDone(): Promise<void> {
    return this.queue.idle();
  }

  /**
   * Keeps the task as stored in memory from its creation on, so that {@link viewOf} answers
   * without reading the store — for a blocking `SendMessage`, which returns the task. Only for a
   * task yet to create; otherwise a no-op. On a shared store it is dropped as soon as the run
   * finds that another process wrote to the task (see {@link reloadAfterConflict}).
   */
  keepProjection(): void {
    this.#keepsProjection = this.#seq === 0;
  }

  /** The task as stored, cut to `view`, if kept; `undefined` otherwise. */
  viewOf(view: TaskViewOptions): Task | undefined {
    return this.#projection === undefined ? undefined : viewOfTask(this.#projection, view);
  }

  /**
   * Stores `config` with the task when it is created, in the same write (a message's inline
   * push config): a crash cannot leave the task without it. Only before the task exists.
   */
  pushConfigWithCreation(config: PushConfigRecord): void {
    if (this.#seq === 0) this.#pushConfigs = [...this.#pushConfigs, config];
  }

  /** Creates the task: its first event is the `Task` snapshot, in `SUBMITTED` state. */
  create(userMessage: Message): Promise<Task> {
    const { created, written } = this.createWith(userMessage, undefined);
    // Without a first change, `written` only mirrors `created`'s failure, reported by `created`.
    written.catch(ignore);
    return created;
  }

  /**
   * Creates the task and applies the agent's first change with it, in one store write: a new
   * task's creation and its first update cost one commit, not two. `created` resolves with the
   * `SUBMITTED` snapshot (the task's first event), `written` as {@link write} would. A change the
   * state machine refuses does not stop the creation; `written` rejects.
   */
  createWith(userMessage: Message, first: ChangeBuilder | undefined): CreationWrite {
    return this.#writer.create(() => this.#prepareCreation(userMessage, first));
  }

  #prepareCreation(userMessage: Message, first: ChangeBuilder | undefined): PreparedCreation {
    const snapshot = submittedTask(this.taskId, this.contextId, userMessage);
    let change: TaskChange | undefined;
    let refused: Error | undefined;
    try {
      change =
        first === undefined || this.#stopped
          ? undefined
          : this.checkChange(first, 'TASK_STATE_SUBMITTED');
    } catch (error) {
      refused = asError(error);
    }
    const creation = taskCreation(snapshot, change);
    const target = { scope: this.scope, pushConfigs: this.#pushConfigs, lease: this.#deps.lease };
    return {
      request: createTaskRequest(target, creation),
      snapshot,
      change,
      refused,
      state: creation.state,
    };
  }

  /** For the writer: the creation was stored. */
  creationStored(creation: PreparedCreation): void {
    const { events } = creation.request;
    if (this.#keepsProjection) this.#projection = projectionOf(creation.request.task);
    this.#seq = events.length;
    this.#state = creation.state;
    for (const event of events) this.#deps.hub.publish(this.taskId, event);
    this.#checkSettled();
  }

  /**
   * Applies a change built from the current state. Rejects with `InvalidTransitionError` when the
   * state machine forbids it (e.g. the agent already completed the task). How soon it resolves
   * depends on the writer (see `pipelined-writer.ts`): a status change always once stored.
   */
  write(build: ChangeBuilder): Promise<WriteOutcome> {
    return this.#writer.write(build);
  }

  /** Limits what the agent's changes may add to the task, from now on. */
  limitContent(budget: TaskBudget): void {
    this.#budget = budget;
  }

  /**
   * For the writer: the change `build` makes from `state`; throws when the machine forbids it, or
   * when it would take the task past its content limits.
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

  /** For the writer: `change` was stored as `event`, the log now at `seq`. */
  changeStored(change: TaskChange, event: TaskLogEntry, seq: number): void {
    const projection = this.#projection;
    if (projection !== undefined) {
      for (const mutation of change.mutations) applyMutation(projection, mutation);
    }
    this.#seq = seq;
    this.#state = change.state;
    this.#deps.hub.publish(this.taskId, event);
    this.#checkSettled();
  }

  /**
   * Applies a change only if the task has not moved since `seq` was read: one conditional write,
   * no retry. Used to fail orphaned tasks without racing a live execution.
   */
  writeIfUnchanged(change: TaskChange): Promise<WriteOutcome> {
    return this.queue.run(async () => ((await this.appendChange(change)) ? 'applied' : 'dropped'));
  }

  /**
   * Re-reads the task after another process wrote to it; stops the run (and fires its abort
   * signal) if the task has ended, e.g. canceled through another replica.
   */
  refresh(): Promise<void> {
    return this.queue.run(async () => {
      await this.reloadAfterConflict();
    });
  }

  /**
   * Resumes an interrupted task with the client's next message. Resolves to false, writing
   * nothing, when the task is not (or no longer) interrupted — e.g. another message resumed it
   * first — so that a task never has two executions.
   */
  resume(userMessage: Message): Promise<boolean> {
    return this.queue.run(async () => {
      for (;;) {
        if (!isInterruptedState(this.#state)) return false;
        if (await this.appendChange(resumeChange(this.taskId, this.contextId, userMessage)))
          return true;
        if (await this.reloadAfterConflict()) return false;
      }
    });
  }

  /**
   * Cancels the task: drops every agent write from now on, fires the abort signal and appends
   * the `CANCELED` status. Resolves to false when the task had already ended.
   */
  cancel(): Promise<boolean> {
    this.#cancelPending++;
    this.#stop();
    const canceled = this.queue.run(async () => {
      for (;;) {
        if (isTerminalState(this.#state)) return false;
        const change = statusChange(this.taskId, this.contextId, 'TASK_STATE_CANCELED', undefined);
        if (await this.appendChange(change)) return true;
        if (await this.reloadAfterConflict()) return false;
      }
    });
    const settle = (): void => {
      this.#cancelPending--;
      this.#checkSettled();
    };
    canceled.then(settle, settle);
    return canceled;
  }

  /** Appends `change` after the last stored event; false when refused (the task moved on). */
  appendChange(change: TaskChange): Promise<boolean> {
    const event = streamEvent(this.#seq + 1, change.payload);
    return this.#deps.store
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

  /** After a refused write: reloads seq and state; true when the task has ended meanwhile. */
  async reloadAfterConflict(): Promise<boolean> {
    const stored = await this.#deps.store.getTask(this.scope, this.taskId, {
      historyLength: 0,
      includeArtifacts: false,
    });
    if (stored === undefined) {
      this.#stop();
      this.#deps.logger.warn({ taskId: this.taskId }, 'task vanished while running');
      return true;
    }
    // Another process wrote: what the run kept no longer is the task as stored.
    if (stored.seq !== this.#seq) this.#projection = undefined;
    this.#seq = stored.seq;
    this.#state = stored.state;
    if (!isTerminalState(stored.state)) {
      this.#checkSettled();
      return false;
    }
    this.#stop();
    return true;
  }
}
