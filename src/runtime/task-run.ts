/**
 * One task while this process works on it: the only writer of the task here. Writes are applied
 * strictly one after another — check the transition, append the event and its mutations in one
 * conditional store write, then publish to readers — so that every reader sees the same order and
 * the stored projection always matches the log. How an agent's changes are sent is the business
 * of the run's writer (`task-writer.ts`), chosen once from what the store declares; the writer
 * works on the run's port (`task-run-port.ts`), which the run keeps private, so that a run offers
 * its verbs and nothing that goes around its queue or its state machine.
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
import { asError } from '../protocol/local-errors.js';
import type { TaskViewOptions } from '../protocol/task-projection.js';
import { isInterruptedState, isTerminalState } from '../protocol/task-state.js';
import type { PushConfigRecord, TaskScope, TaskTraceContext } from '../stores/task-store.js';
import type { TaskBudget } from './task-content-limits.js';
import { PipelinedWriter } from './pipelined-writer.js';
import { SerialWriter } from './serial-writer.js';
import { resumeChange, statusChange, type TaskChange } from './task-changes.js';
import { createTaskRequest, submittedTask, taskCreation } from './task-creation.js';
import type { TaskRunMetrics } from '../telemetry/task-metrics.js';
import { TaskRunPort, type TaskRunDependencies, type TaskRunInit } from './task-run-port.js';
import type {
  ChangeBuilder,
  CreationWrite,
  PreparedCreation,
  TaskWriter,
  WriteOutcome,
} from './task-writer.js';

export type { WriteOutcome } from './task-writer.js';
export type { TaskRunDependencies, TaskRunInit } from './task-run-port.js';

const ignore = (): void => {};

/** Shared by runs without push configs (most): no empty array per run. */
const NO_PUSH_CONFIGS: readonly PushConfigRecord[] = Object.freeze([]);

/** The serialized writer of one task. */
export class TaskRun {
  readonly scope: TaskScope;
  readonly taskId: string;
  readonly contextId: string;
  readonly #lease: TaskRunDependencies['lease'];
  readonly #port: TaskRunPort;
  readonly #writer: TaskWriter;
  #pushConfigs: readonly PushConfigRecord[] = NO_PUSH_CONFIGS;
  #traceContext: TaskTraceContext | undefined;

  constructor(deps: TaskRunDependencies, init: TaskRunInit) {
    this.scope = init.scope;
    this.taskId = init.taskId;
    this.contextId = init.contextId;
    this.#lease = deps.lease;
    const port = new TaskRunPort(deps, init);
    this.#port = port;
    this.#writer = deps.store.pipelinedAppends ? new PipelinedWriter(port) : new SerialWriter(port);
  }

  /**
   * The state once every write accepted so far is stored: the stored state, or ahead of it while
   * changes sent ahead wait for their commit.
   */
  get acceptedState(): TaskState {
    return this.#writer.acceptedState();
  }

  /** The task metrics of the run (telemetry); the runtime ends them with the run. */
  get metrics(): TaskRunMetrics {
    return this.#port.metrics;
  }

  /** The sequence number of the last stored event (0 before the task is created). */
  get seq(): number {
    return this.#port.seq;
  }

  /** True once the task was canceled or ended by another writer: agent writes are dropped. */
  get stopped(): boolean {
    return this.#port.stopped;
  }

  /** Fires when the task is canceled (here or elsewhere) or {@link abort} is called. */
  get signal(): AbortSignal {
    return this.#port.settling.signal;
  }

  /** Fires the abort signal without changing the task (server shutdown). */
  abort(): void {
    this.#port.settling.abort();
  }

  /**
   * Resolves once the task is terminal or interrupted, or the run stopped: where a blocking
   * `SendMessage` returns.
   */
  untilSettled(): Promise<void> {
    return this.#port.untilSettled();
  }

  /** Resolves when every write queued so far has settled (succeeded or failed). */
  writesDone(): Promise<void> {
    return this.#port.queue.idle();
  }

  /**
   * Keeps the task as stored in memory from its creation on, so that {@link viewOf} answers
   * without reading the store — for a blocking `SendMessage`, which returns the task. Only for a
   * task yet to create, on a store no other process writes; otherwise a no-op.
   */
  keepProjection(): void {
    this.#port.keepProjection();
  }

  /** The task as stored, cut to `view`, if kept; `undefined` otherwise. */
  viewOf(view: TaskViewOptions): Task | undefined {
    return this.#port.viewOf(view);
  }

  /** Limits what the agent's changes may add to the task, from now on. */
  limitContent(budget: TaskBudget): void {
    this.#port.limitContent(budget);
  }

  /**
   * Stores `config` with the task when it is created, in the same write (a message's inline
   * push config): a crash cannot leave the task without it. Only before the task exists.
   */
  pushConfigWithCreation(config: PushConfigRecord): void {
    if (this.#port.seq === 0) this.#pushConfigs = [...this.#pushConfigs, config];
  }

  /** Stores the trace context of the call that admitted the task with its creation. */
  traceContextWithCreation(traceContext: TaskTraceContext | undefined): void {
    if (this.#port.seq === 0) this.#traceContext = traceContext;
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
        first === undefined || this.#port.stopped
          ? undefined
          : this.#port.checkChange(first, 'TASK_STATE_SUBMITTED');
    } catch (error) {
      refused = asError(error);
    }
    const creation = taskCreation(snapshot, change);
    const target = {
      scope: this.scope,
      pushConfigs: this.#pushConfigs,
      lease: this.#lease,
      traceContext: this.#traceContext,
    };
    return {
      request: createTaskRequest(target, creation),
      snapshot,
      change,
      refused,
      state: creation.state,
    };
  }

  /**
   * Applies a change built from the current state. Rejects with `InvalidTransitionError` when the
   * state machine forbids it (e.g. the agent already completed the task). How soon it resolves
   * depends on the writer (see `pipelined-writer.ts`): a status change always once stored.
   */
  write(build: ChangeBuilder): Promise<WriteOutcome> {
    return this.#writer.write(build);
  }

  /**
   * Applies a change only if the task has not moved since `seq` was read: one conditional write,
   * no retry. Used to fail orphaned tasks without racing a live execution.
   */
  writeIfUnchanged(change: TaskChange): Promise<WriteOutcome> {
    const port = this.#port;
    return port.queue.run(async () => ((await port.appendChange(change)) ? 'applied' : 'dropped'));
  }

  /**
   * Re-reads the task after another process wrote to it; stops the run (and fires its abort
   * signal) if the task has ended, e.g. canceled through another replica.
   */
  refresh(): Promise<void> {
    const port = this.#port;
    return port.queue.run(async () => {
      await port.reloadAfterConflict();
    });
  }

  /**
   * Resumes an interrupted task with the client's next message. Resolves to false, writing
   * nothing, when the task is not (or no longer) interrupted — e.g. another message resumed it
   * first — so that a task never has two executions.
   */
  resume(userMessage: Message): Promise<boolean> {
    const port = this.#port;
    return port.queue.run(async () => {
      for (;;) {
        if (!isInterruptedState(port.storedState)) return false;
        if (await port.appendChange(resumeChange(this.taskId, this.contextId, userMessage)))
          return true;
        if (await port.reloadAfterConflict()) return false;
      }
    });
  }

  /**
   * Cancels the task: drops every agent write from now on, fires the abort signal and appends
   * the `CANCELED` status. Resolves to false when the task had already ended.
   */
  cancel(): Promise<boolean> {
    const port = this.#port;
    port.settling.cancelQueued();
    port.stop();
    const canceled = port.queue.run(async () => {
      for (;;) {
        if (isTerminalState(port.storedState)) return false;
        const change = statusChange(this.taskId, this.contextId, 'TASK_STATE_CANCELED', undefined);
        if (await port.appendChange(change)) return true;
        if (await port.reloadAfterConflict()) return false;
      }
    });
    const settle = (): void => {
      port.settling.cancelDone();
      port.checkSettled();
    };
    canceled.then(settle, settle);
    return canceled;
  }
}
