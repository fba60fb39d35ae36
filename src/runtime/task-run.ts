/**
 * One task while an execution works on it: the only writer of the task in this process. Writes
 * are applied strictly one after another — check the transition, append the event and its
 * mutations in one conditional store write, then publish to readers — so that every reader sees
 * the same order and the stored projection always matches the log.
 *
 * On a store that applies writes in call order (`appliesWritesInOrder`: memory, SQLite), the
 * agent's changes are sent ahead: each is checked against the state the changes before it will
 * leave and handed to the store at once, without waiting for their commit, so that a task's
 * consecutive changes share a commit (see {@link TaskRun.write}). They are still published only
 * once stored, in order. Elsewhere (PostgreSQL, with other replicas) each waits for the one before.
 *
 * Cancellation wins over the agent: once `cancel()` is called, writes the agent has queued or
 * makes later are dropped (they resolve without effect) — except those already sent ahead, which
 * are stored before the cancellation — and the task ends CANCELED even if the agent ignores its
 * abort signal. A conditional write that finds the task changed by someone else
 * (another replica) reloads the task; if it has ended meanwhile, the run stops writing too.
 */

import type { Message, Task, TaskState } from '../protocol/generated/types.js';
import { InvalidTransitionError, asError } from '../protocol/local-errors.js';
import {
  assertTransition,
  isFinalOrInterruptedState,
  isInterruptedState,
  isTerminalState,
} from '../protocol/task-state.js';
import type {
  AppendResult,
  CreateTaskRequest,
  TaskLogEntry,
  TaskScope,
  TaskStore,
  TaskViewOptions,
} from '../stores/task-store.js';
import {
  applyMutation,
  projectionOf,
  viewOfTask,
  type MutableTaskProjection,
} from '../protocol/task-projection.js';
import type { Logger } from './logger.js';
import { streamEvent } from './stream-event.js';
import { resumeChange, statusChange, targetStateOf, type TaskChange } from './task-changes.js';
import { submittedTask, taskCreation } from './task-creation.js';
import type { TaskEventHub } from './task-event-hub.js';
import { SerialQueue } from './serial-queue.js';
import { WRITE_AHEAD_LIMIT, WriteAhead } from './write-ahead.js';

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

/** The result of a write: applied, or dropped because the task was canceled or ended elsewhere. */
export type WriteOutcome = 'applied' | 'dropped';

const ignore = (): void => {};

/** How the store answered a write sent ahead. */
type SentAhead = { result: AppendResult; error?: undefined } | { result?: undefined; error: Error };
const APPLIED: WriteOutcome = 'applied';
const DROPPED: Promise<WriteOutcome> = Promise.resolve('dropped');

/** The serialized writer of one task. */
export class TaskRun {
  readonly scope: TaskScope;
  readonly taskId: string;
  readonly contextId: string;
  readonly #deps: TaskRunDependencies;
  #seq: number;
  #state: TaskState;
  /** The writes, applied one after another. */
  readonly #queue = new SerialQueue();
  #stopped = false;
  /** A cancel is queued: the run settles when its CANCELED status is stored, not before. */
  #cancelPending = 0;
  // Created on demand: most executions never look at their signal.
  #controller: AbortController | undefined;
  #aborted = false;
  #settled: { promise: Promise<void>; resolve: () => void } | undefined;
  #onSettled: (() => void) | undefined;
  /** The writes sent ahead of their commit (see {@link write}). */
  readonly #ahead: WriteAhead;
  /** The task as stored, when kept (see {@link keepProjection}). */
  #projection: MutableTaskProjection | undefined;
  #keepsProjection = false;

  constructor(deps: TaskRunDependencies, init: TaskRunInit) {
    this.#deps = deps;
    this.scope = init.scope;
    this.taskId = init.taskId;
    this.contextId = init.contextId;
    this.#seq = init.seq;
    this.#state = init.state;
    this.#ahead = new WriteAhead(init.state);
  }

  /** The state after the last applied write. */
  get state(): TaskState {
    return this.#state;
  }

  /**
   * The state once every write already accepted is applied: {@link state}, or ahead of it while
   * changes sent ahead wait for their commit.
   */
  get latestState(): TaskState {
    return this.#ahead.latestState(this.#state);
  }

  /** The sequence number of the last applied event (0 before the task is created). */
  get seq(): number {
    return this.#seq;
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
    if (this.#settled === undefined && this.#onSettled === undefined) return;
    if (isFinalOrInterruptedState(this.#state) || (this.#stopped && this.#cancelPending === 0)) {
      this.#settled?.resolve();
      const listener = this.#onSettled;
      this.#onSettled = undefined;
      listener?.();
    }
  }

  /**
   * Calls `listener` once, when the run settles as {@link untilSettled} describes (at once if it
   * already has). Cheaper than a promise for a caller that combines it with other signals.
   */
  whenSettled(listener: () => void): void {
    this.#onSettled = listener;
    this.#checkSettled();
  }

  #stop(): void {
    this.#stopped = true;
    this.abort();
    this.#checkSettled();
  }

  /** Resolves when every write queued so far has settled. */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  /**
   * Keeps the task as stored in memory from its creation on, so that {@link viewOf} answers
   * without reading the store — for a blocking `SendMessage`, which returns the task. Only for a
   * task yet to create, on a store where this run is its only writer; otherwise a no-op.
   */
  keepProjection(): void {
    this.#keepsProjection = this.#seq === 0 && this.#deps.store.topology === 'exclusive';
  }

  /** The task as stored, cut to `view`, if kept; `undefined` otherwise. */
  viewOf(view: TaskViewOptions): Task | undefined {
    return this.#projection === undefined ? undefined : viewOfTask(this.#projection, view);
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
   * state machine refuses does not stop the creation; `written` rejects. Where writes are sent
   * ahead, the creation is too, and a first change that is an artifact settles `written` at once,
   * as {@link write} does.
   */
  createWith(
    userMessage: Message,
    first: ((state: TaskState) => TaskChange) | undefined,
  ): { created: Promise<Task>; written: Promise<WriteOutcome> } {
    let settleWrite!: (outcome: Promise<WriteOutcome>) => void;
    const written = new Promise<WriteOutcome>((resolve) => (settleWrite = resolve));
    // The creation is sent ahead only when it is the run's first write, as it always is.
    const ahead = this.#queue.pending === 0 && this.#deps.store.pipelinedAppends;
    const created = this.#queue.run(() => {
      const task = submittedTask(this.taskId, this.contextId, userMessage);
      let change: TaskChange | undefined;
      let refused: Error | undefined;
      try {
        change =
          first === undefined || this.#stopped
            ? undefined
            : this.#checked(first, task.status.state);
      } catch (error) {
        refused = asError(error);
      }
      const { events, stored: storedTask, state } = taskCreation(task, change);
      const lease = this.#deps.lease;
      const request: CreateTaskRequest = { scope: this.scope, task: storedTask, events };
      const stored = this.#deps.store.createTask(
        lease === undefined
          ? request
          : { ...request, leaseHolder: lease.holder, leaseMs: lease.ms },
      );
      const early =
        ahead &&
        refused === undefined &&
        change !== undefined &&
        targetStateOf(change) === undefined;
      if (ahead) this.#ahead.sent(events.length, state);
      const done = stored.then(
        () => {
          if (ahead) this.#ahead.handled(0);
          if (this.#keepsProjection) this.#projection = projectionOf(request.task);
          this.#seq = events.length;
          this.#state = state;
          for (const event of events) this.#deps.hub.publish(this.taskId, event);
          this.#checkSettled();
          return task;
        },
        (error: unknown) => {
          const failure = asError(error);
          if (ahead) {
            // The writes sent after it would find no task: they fail with its error.
            this.#ahead.failed(failure, 0, !early);
            this.#ahead.handled(0);
          }
          throw failure;
        },
      );
      if (early) settleWrite(Promise.resolve(APPLIED));
      else {
        settleWrite(
          refused === undefined
            ? done.then(() => (change === undefined ? 'dropped' : APPLIED))
            : done.then(() => Promise.reject(refused)),
        );
      }
      return done;
    });
    // A creation that failed before it was attempted fails the write with the same error.
    created.catch(() => settleWrite(created.then(() => APPLIED)));
    return { created, written };
  }

  /**
   * Applies a change built from the current state. Rejects with `InvalidTransitionError` when the
   * state machine forbids it (e.g. the agent already completed the task).
   *
   * Sent ahead (see the module documentation), a change without a new state — an artifact —
   * resolves as soon as it is handed to the store, while fewer than {@link WRITE_AHEAD_LIMIT} are
   * waiting for their commit; if its write then fails, the next call rejects with that error. A
   * status change always resolves once stored: afterwards {@link state} is the state it set.
   */
  write(build: (state: TaskState) => TaskChange): Promise<WriteOutcome> {
    const unreported = this.#ahead.takeUnreported();
    if (unreported !== undefined) return Promise.reject(unreported);
    if (this.#canWriteAhead()) return this.#writeAhead(build);
    return this.#queue.run(() => this.#tryWrite(build));
  }

  #canWriteAhead(): boolean {
    return (
      this.#deps.store.pipelinedAppends &&
      !this.#stopped &&
      this.#queue.pending === this.#ahead.count &&
      !this.#ahead.failing
    );
  }

  #writeAhead(build: (state: TaskState) => TaskChange): Promise<WriteOutcome> {
    const base = this.#ahead.base({ seq: this.#seq, state: this.#state });
    const expectedSeq = base.seq;
    let change: TaskChange;
    try {
      change = this.#checked(build, base.state);
    } catch (error) {
      return Promise.reject(asError(error));
    }
    const event = streamEvent(expectedSeq + 1, change.payload);
    const sent = this.#deps.store.append({
      taskId: this.taskId,
      expectedSeq,
      events: [event],
      mutations: change.mutations,
    });
    this.#ahead.sent(expectedSeq + 1, change.state);
    const waits = targetStateOf(change) !== undefined || this.#ahead.count > WRITE_AHEAD_LIMIT;
    // Settled now, so that a failure is never an unhandled rejection; acted on in queue order.
    const settled = sent.then(
      (result): SentAhead => ({ result }),
      (error: unknown): SentAhead => ({ error: asError(error) }),
    );
    const handled = this.#queue.run(() =>
      settled.then(({ result, error }) => {
        if (error !== undefined) {
          this.#ahead.failed(error, expectedSeq, waits);
          this.#ahead.handled(expectedSeq);
          throw error;
        }
        const doomedBy = this.#ahead.handled(expectedSeq);
        if (result.ok) {
          this.#applied(change, event, result.seq);
          return APPLIED;
        }
        if (doomedBy !== undefined) {
          if (waits) this.#ahead.reported(doomedBy.error);
          throw doomedBy.error;
        }
        return this.#retryWrite(build);
      }),
    );
    if (waits) return handled;
    // Its failure reaches the agent through its next call (see `WriteAhead.takeUnreported`).
    handled.catch(ignore);
    return Promise.resolve(APPLIED);
  }

  #applied(change: TaskChange, event: TaskLogEntry, seq: number): void {
    const projection = this.#projection;
    if (projection !== undefined) {
      for (const mutation of change.mutations) applyMutation(projection, mutation);
    }
    this.#seq = seq;
    this.#state = change.state;
    this.#deps.hub.publish(this.taskId, event);
    this.#checkSettled();
  }

  /** One attempt; after a refused (stale) append, reloads and tries again with the new state. */
  #tryWrite(build: (state: TaskState) => TaskChange): Promise<WriteOutcome> {
    if (this.#stopped) return DROPPED;
    let change: TaskChange;
    try {
      change = this.#checked(build, this.#state);
    } catch (error) {
      return Promise.reject(asError(error));
    }
    return this.#append(change).then((applied) => (applied ? APPLIED : this.#retryWrite(build)));
  }

  /** The change `build` makes from `state`; throws when the state machine forbids it. */
  #checked(build: (state: TaskState) => TaskChange, state: TaskState): TaskChange {
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
    return change;
  }

  async #retryWrite(build: (state: TaskState) => TaskChange): Promise<WriteOutcome> {
    if (await this.#reloadAndCheckEnded()) return 'dropped';
    return this.#tryWrite(build);
  }

  /**
   * Applies a change only if the task has not moved since `seq` was read: one conditional write,
   * no retry. Used to fail orphaned tasks without racing a live execution.
   */
  writeIfUnchanged(change: TaskChange): Promise<WriteOutcome> {
    return this.#queue.run(async () => ((await this.#append(change)) ? 'applied' : 'dropped'));
  }

  /**
   * Re-reads the task after another process wrote to it; stops the run (and fires its abort
   * signal) if the task has ended, e.g. canceled through another replica.
   */
  refresh(): Promise<void> {
    return this.#queue.run(async () => {
      await this.#reloadAndCheckEnded();
    });
  }

  /**
   * Resumes an interrupted task with the client's next message. Resolves to false, writing
   * nothing, when the task is not (or no longer) interrupted — e.g. another message resumed it
   * first — so that a task never has two executions.
   */
  resume(userMessage: Message): Promise<boolean> {
    return this.#queue.run(async () => {
      for (;;) {
        if (!isInterruptedState(this.#state)) return false;
        if (await this.#append(resumeChange(this.taskId, this.contextId, userMessage))) return true;
        if (await this.#reloadAndCheckEnded()) return false;
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
    const canceled = this.#queue.run(async () => {
      for (;;) {
        if (isTerminalState(this.#state)) return false;
        const change = statusChange(this.taskId, this.contextId, 'TASK_STATE_CANCELED', undefined);
        if (await this.#append(change)) return true;
        if (await this.#reloadAndCheckEnded()) return false;
      }
    });
    const settle = (): void => {
      this.#cancelPending--;
      this.#checkSettled();
    };
    canceled.then(settle, settle);
    return canceled;
  }

  #append(change: TaskChange): Promise<boolean> {
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
        this.#applied(change, event, result.seq);
        return true;
      });
  }

  /** After a refused write: reloads seq and state; true when the task has ended meanwhile. */
  async #reloadAndCheckEnded(): Promise<boolean> {
    const stored = await this.#deps.store.getTask(this.scope, this.taskId, {
      historyLength: 0,
      includeArtifacts: false,
    });
    if (stored === undefined) {
      this.#stop();
      this.#deps.logger.warn({ taskId: this.taskId }, 'task vanished while running');
      return true;
    }
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
