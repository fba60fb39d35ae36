/**
 * One run of an agent's `execute` for one incoming message. For a new message the task is created
 * lazily, by the agent's first task change, because the agent may instead answer with a direct
 * message and no task at all (spec 3.1.1). The execution ends the task on the agent's behalf when
 * `execute` returns (completed) or throws (failed, with a safe message; the error goes to the
 * log) — unless the agent interrupted it (input or authorization required), which ends the
 * execution's turn: the task then waits for the client, and any further change the agent tries
 * is refused.
 *
 * The agent never sees this object: it gets an `ExecutionContext` (`agent-context.ts`), whose
 * methods call the ones here.
 */

import type { Artifact, Message, Task, TaskState } from '../protocol/generated/types.js';
import { isA2AError, type A2AError } from '../protocol/errors.js';
import type { Struct } from '../protocol/json.js';
import { UsageError, asError } from '../protocol/local-errors.js';
import {
  isFinalOrInterruptedState,
  isInterruptedState,
  isTerminalState,
} from '../protocol/task-state.js';
import type { TaskScope, TaskStore } from '../stores/task-store.js';
import type { AgentDefinition } from './agent.js';
import { ExecutionContext } from './agent-context.js';
import { agentMessageOf, type MessageContent } from './agent-content.js';
import type { ExecutionInput, ExecutionPort } from './execution-port.js';
import type { Logger } from './logger.js';
import { artifactChange, statusChange } from './task-changes.js';
import { TaskContentLimitError } from './task-content-limits.js';
import type { TaskRun } from './task-run.js';
import type { ChangeBuilder, WriteOutcome } from './task-writer.js';

/** How an execution first answered: a direct message, or a task. */
export type ExecutionOutcome =
  | { readonly kind: 'message'; readonly message: Message }
  | { readonly kind: 'task'; readonly task: Task | undefined }
  /** The agent refused the message with an A2A error before any task change: no task exists. */
  | { readonly kind: 'refused'; readonly error: A2AError };

/** Everything an execution needs to start. */
export interface TaskExecutionInit extends ExecutionInput {
  readonly agent: AgentDefinition;
  /** The run of the task: begun for a new task, or already resumed for one that continues. */
  readonly run: TaskRun;
  readonly store: TaskStore;
  readonly logger: Logger;
  readonly scope: TaskScope;
}

const SAFE_FAILURE = 'The agent failed while working on this task.';
const LOST_TURN = 'The agent stopped before the task could wait for input; it did not finish.';

/** An execution of the agent for one message. */
export class TaskExecution implements ExecutionPort {
  readonly init: TaskExecutionInit;
  readonly run: TaskRun;
  readonly taskId: string;
  readonly contextId: string;
  /** Settles when `execute` has returned and every write has been applied; never rejects. */
  readonly finished: Promise<void>;
  #resolveFinished!: () => void;
  /** Settles with the first answer: a direct message, or the task once it exists. */
  readonly outcome: Promise<ExecutionOutcome>;
  #resolveOutcome!: (outcome: ExecutionOutcome) => void;
  #creating: Promise<Task> | undefined;
  /** The task could not be created: every later change rejects with this. */
  #creationError: Error | undefined;
  #replied = false;
  /** The interrupted state the agent asked for: its turn is over. */
  #interrupting: TaskState | undefined;

  constructor(init: TaskExecutionInit) {
    this.init = init;
    this.run = init.run;
    this.taskId = init.message.taskId as string;
    this.contextId = init.message.contextId as string;
    this.outcome = new Promise((resolve) => {
      this.#resolveOutcome = resolve;
    });
    if (init.task !== undefined) this.#resolveOutcome({ kind: 'task', task: init.task });
    this.finished = new Promise((resolve) => {
      this.#resolveFinished = resolve;
    });
  }

  get signal(): AbortSignal {
    return this.run.signal;
  }

  /** The task this message continues, after the resume; `undefined` for a new task. */
  get task(): Task | undefined {
    return this.init.task;
  }

  /**
   * Runs the agent. Separate from construction so that the caller can subscribe to the task's
   * events first; `finished` settles when it is over.
   */
  start(): Promise<void> {
    void this.#execute().then(this.#resolveFinished);
    return this.finished;
  }

  async #execute(): Promise<void> {
    const { agent, logger } = this.init;
    const run = this.run;
    try {
      await agent.execute(new ExecutionContext(this));
      if (this.#replied) return;
      if (this.#interrupting !== undefined) {
        // The agent's turn ended with its interruption; if that was not stored, nothing will
        // end the task but this.
        if (!run.stopped && !isFinalOrInterruptedState(run.acceptedState)) {
          await this.#settle('TASK_STATE_FAILED', agentMessageOf(LOST_TURN, this));
        }
        return;
      }
      // Not waiting for the task's creation: the run writes the completion after it, and an
      // agent that changed nothing gets its task created and completed in one write.
      if (!run.stopped && !isFinalOrInterruptedState(run.acceptedState)) {
        await this.#settle('TASK_STATE_COMPLETED', undefined);
      }
    } catch (error) {
      if (this.#refusedBeforeTask(error)) return;
      if (error instanceof TaskContentLimitError) {
        logger.warn({ taskId: this.taskId, limit: error.limit }, 'a task reached a content limit');
      } else logger.error({ err: error, taskId: this.taskId }, 'agent execution failed');
      // A limit's message is ours and names it; anything else the agent threw may hold secrets.
      await this.#failAfterError(
        error instanceof TaskContentLimitError ? error.message : SAFE_FAILURE,
      );
    } finally {
      await run.writesDone();
      // An execution that never answered (a failing store) must not leave waiters hanging.
      this.#resolveOutcome({ kind: 'task', task: undefined });
    }
  }

  /**
   * An A2A error thrown before the first task change of a new message (and before any reply)
   * refuses the message: the call is answered with it, as the runtime's own checks are, and no
   * task is created.
   */
  #refusedBeforeTask(error: unknown): boolean {
    if (!isA2AError(error)) return false;
    if (this.#replied || this.#creating !== undefined || this.init.task !== undefined) return false;
    this.#resolveOutcome({ kind: 'refused', error });
    return true;
  }

  async #failAfterError(reason: string): Promise<void> {
    if (this.#replied) return;
    const run = this.run;
    try {
      await this.#ensureTask();
      // A task that waits for the client stays so: the client was told it does.
      if (isInterruptedState(run.acceptedState) && this.#interrupting !== undefined) return;
      if (!run.stopped && !isTerminalState(run.acceptedState)) {
        await this.#settle('TASK_STATE_FAILED', agentMessageOf(reason, this));
      }
    } catch (error) {
      this.init.logger.error(
        { err: error, taskId: this.taskId },
        'could not record the failure of the task',
      );
    }
  }

  /** Creates the task on the first task change of a new message. */
  #ensureTask(): Promise<Task> {
    if (this.#creating === undefined) {
      if (this.#replied) {
        return Promise.reject(
          new UsageError('This execution already answered with reply(); it has no task to change'),
        );
      }
      this.#creating =
        this.init.task !== undefined
          ? Promise.resolve(this.init.task)
          : this.run.create(this.init.message).then((task) => this.#taskCreated(task));
      this.#creating.catch((error: unknown) => this.#creationFailed(error));
    }
    return this.#creating;
  }

  // Methods, not arrow fields: an execution does not keep two closures for its whole life.
  #taskCreated(task: Task): Task {
    this.#resolveOutcome({ kind: 'task', task });
    return task;
  }

  #creationFailed(error: unknown): void {
    this.#creationError = asError(error);
  }

  /** The runtime's own end of the task (completion on return, failure on throw). */
  async #settle(state: TaskState, message: Message | undefined): Promise<void> {
    await this.#send(() => statusChange(this.taskId, this.contextId, state, message));
  }

  /** A change the agent asked for: refused once its turn is over. */
  #write(build: ChangeBuilder): Promise<WriteOutcome> {
    if (this.#interrupting !== undefined) return Promise.reject(this.#turnOver());
    return this.#send(build);
  }

  #turnOver(): UsageError {
    return new UsageError(
      `This execution moved task ${this.taskId} to ${this.#interrupting}: its turn is over and it can no longer change the task. Return from execute() right after inputRequired()/authRequired(); the client's next message continues the task in a new execution`,
    );
  }

  /**
   * Writes a change; the first change of a new task is written with its creation. Later changes
   * go straight to the run, which writes them after the creation, without waiting for it.
   */
  #send(build: ChangeBuilder): Promise<WriteOutcome> {
    if (this.#creationError !== undefined) return Promise.reject(this.#creationError);
    if (this.init.task !== undefined || this.#creating !== undefined) return this.run.write(build);
    // After reply() there is no task: this rejects with a UsageError.
    if (this.#replied) return this.#ensureTask().then(() => this.run.write(build));
    const { created, written } = this.run.createWith(this.init.message, build);
    this.#creating = created.then((task) => this.#taskCreated(task));
    // A failed creation reaches the agent through `written`, and any later change rejects too.
    this.#creating.catch((error: unknown) => this.#creationFailed(error));
    return written;
  }

  reply(content: MessageContent, metadata: Struct | undefined): Promise<void> {
    if (this.#replied) return Promise.reject(new UsageError('reply() can be called only once'));
    if (this.#creating !== undefined || this.init.task !== undefined) {
      return Promise.reject(
        new UsageError(
          this.init.task !== undefined
            ? `This message continues task ${this.taskId}; answer with complete(message) or inputRequired(message) instead of reply()`
            : 'reply() must come before any task change; this execution already works on a task',
        ),
      );
    }
    this.#replied = true;
    const message = agentMessageOf(content, { contextId: this.contextId });
    if (metadata !== undefined) message.metadata = metadata;
    this.#resolveOutcome({ kind: 'message', message });
    return Promise.resolve();
  }

  /** A status change the agent asked for. */
  changeStatus(state: TaskState, message: MessageContent | undefined): Promise<WriteOutcome> {
    if (this.#interrupting !== undefined) return Promise.reject(this.#turnOver());
    // Built now, so that invalid content is refused before anything is written.
    const status = message === undefined ? undefined : agentMessageOf(message, this);
    if (state === 'TASK_STATE_INPUT_REQUIRED' || state === 'TASK_STATE_AUTH_REQUIRED') {
      this.#interrupting = state;
      return this.#send(() => statusChange(this.taskId, this.contextId, state, status));
    }
    return this.#write(() => statusChange(this.taskId, this.contextId, state, status));
  }

  /** An artifact (or a chunk of one) the agent emits. */
  emitArtifact(artifact: Artifact, append: boolean, lastChunk: boolean): Promise<WriteOutcome> {
    return this.#write((state) =>
      artifactChange(this.taskId, this.contextId, state, artifact, append, lastChunk),
    );
  }

  /** Earlier tasks of the same context, most recently updated first. */
  async contextTasks(limit: number): Promise<Task[]> {
    const page = await this.init.store.listTasks(this.init.scope, {
      contextId: this.contextId,
      pageSize: Math.min(limit + 1, 100),
      countTotal: false,
    });
    return page.tasks.filter((task) => task.id !== this.taskId).slice(0, limit);
  }
}
