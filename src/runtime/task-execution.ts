/**
 * One run of an agent's `execute` for one incoming message, and the {@link AgentContext} it is
 * given. For a new message the task is created lazily, by the agent's first task change, because
 * the agent may instead answer with a direct message and no task at all (spec 3.1.1). The
 * execution ends the task on the agent's behalf when `execute` returns (completed) or throws
 * (failed, with a safe message; the error goes to the log).
 */

import type { Artifact, Message, Task, TaskState } from '../protocol/generated/types.js';
import type { Struct } from '../protocol/json.js';
import { UsageError, asError } from '../protocol/local-errors.js';
import { isFinalOrInterruptedState, isTerminalState } from '../protocol/task-state.js';
import type { TaskScope } from '../stores/task-store.js';
import type { AgentContext, AgentDefinition, ArtifactUpdateOptions, Caller } from './agent.js';
import { agentMessageOf, artifactOf, type MessageContent } from './agent-content.js';
import { artifactChange, statusChange, type TaskChange } from './task-changes.js';
import { TaskRun, type TaskRunDependencies, type WriteOutcome } from './task-run.js';

/** How an execution first answered: a direct message, or a task. */
export type ExecutionOutcome =
  | { readonly kind: 'message'; readonly message: Message }
  | { readonly kind: 'task'; readonly task: Task | undefined };

/** Everything an execution needs to start. */
export interface TaskExecutionInit {
  readonly agent: AgentDefinition;
  readonly deps: TaskRunDependencies;
  readonly scope: TaskScope;
  readonly caller: Caller;
  /** The incoming message, already given its `taskId` and `contextId`. */
  readonly message: Message;
  /** For a message that continues a task: the run of that task, already resumed. */
  run?: TaskRun;
  /** The continued task as it is after the resume. */
  task?: Task;
  readonly extensions: readonly string[];
  readonly acceptedOutputModes: readonly string[] | undefined;
  readonly requestMetadata: Struct | undefined;
}

const SAFE_FAILURE = 'The agent failed while working on this task.';

/** An execution and its agent context. */
export class TaskExecution implements AgentContext {
  readonly message: Message;
  readonly taskId: string;
  readonly contextId: string;
  readonly task: Task | undefined;
  readonly caller: Caller;
  readonly extensions: readonly string[];
  readonly acceptedOutputModes: readonly string[] | undefined;
  readonly requestMetadata: Struct | undefined;
  /** Settles when `execute` has returned and every write has been applied. */
  readonly done: Promise<void>;
  #resolveDone!: () => void;
  /** Settles with the first answer: a direct message, or the task once it exists. */
  readonly outcome: Promise<ExecutionOutcome>;
  readonly #init: TaskExecutionInit;
  readonly #run: TaskRun;
  #resolveOutcome!: (outcome: ExecutionOutcome) => void;
  #creating: Promise<Task> | undefined;
  /** The task could not be created: every later change rejects with this. */
  #creationError: Error | undefined;
  #replied = false;

  constructor(init: TaskExecutionInit) {
    this.#init = init;
    this.message = init.message;
    this.taskId = init.message.taskId as string;
    this.contextId = init.message.contextId as string;
    this.task = init.task;
    this.caller = init.caller;
    this.extensions = init.extensions;
    this.acceptedOutputModes = init.acceptedOutputModes;
    this.requestMetadata = init.requestMetadata;
    this.#run =
      init.run ??
      new TaskRun(init.deps, {
        scope: init.scope,
        taskId: this.taskId,
        contextId: this.contextId,
        seq: 0,
        state: 'TASK_STATE_UNSPECIFIED',
      });
    this.outcome = new Promise((resolve) => {
      this.#resolveOutcome = resolve;
    });
    if (init.run !== undefined) this.#resolveOutcome({ kind: 'task', task: init.task });
    this.done = new Promise((resolve) => {
      this.#resolveDone = resolve;
    });
  }

  /**
   * Runs the agent. Separate from construction so that the caller can subscribe to the task's
   * events first; `done` settles when it is over (it never rejects: failures end the task).
   */
  start(): Promise<void> {
    void this.#execute().then(this.#resolveDone);
    return this.done;
  }

  /** The run of this execution's task (also before the task exists). */
  get run(): TaskRun {
    return this.#run;
  }

  get text(): string {
    let text = '';
    for (const part of this.message.parts) {
      if (part.text !== undefined) text = text === '' ? part.text : `${text}\n${part.text}`;
    }
    return text;
  }

  get signal(): AbortSignal {
    return this.#run.signal;
  }

  async contextTasks(options: { limit?: number } = {}): Promise<Task[]> {
    const limit = options.limit ?? 20;
    const page = await this.#init.deps.store.listTasks(this.#init.scope, {
      contextId: this.contextId,
      pageSize: Math.min(limit + 1, 100),
      countTotal: false,
    });
    return page.tasks.filter((task) => task.id !== this.taskId).slice(0, limit);
  }

  async #execute(): Promise<void> {
    const { agent, deps } = this.#init;
    try {
      await agent.execute(this);
      if (this.#replied) return;
      // Not waiting for the task's creation: the run writes the completion after it, and an
      // agent that changed nothing gets its task created and completed in one write.
      if (!this.#run.stopped && !isFinalOrInterruptedState(this.#run.latestState)) {
        await this.#change('TASK_STATE_COMPLETED', undefined);
      }
    } catch (error) {
      deps.logger.error({ err: error, taskId: this.taskId }, 'agent execution failed');
      await this.#failAfterError();
    } finally {
      await this.#run.idle();
      // An execution that never answered (a failing store) must not leave waiters hanging.
      this.#resolveOutcome({ kind: 'task', task: undefined });
    }
  }

  async #failAfterError(): Promise<void> {
    if (this.#replied) return;
    try {
      await this.#ensureTask();
      if (!this.#run.stopped && !isTerminalState(this.#run.latestState)) {
        await this.#change('TASK_STATE_FAILED', agentMessageOf(SAFE_FAILURE, this));
      }
    } catch (error) {
      this.#init.deps.logger.error(
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
        this.#init.run !== undefined
          ? Promise.resolve(this.task as Task)
          : this.#run.create(this.message).then((task) => {
              this.#resolveOutcome({ kind: 'task', task });
              return task;
            });
      this.#creating.catch(this.#creationFailed);
    }
    return this.#creating;
  }

  async #change(state: TaskState, message: Message | undefined): Promise<void> {
    await this.#write(() => statusChange(this.taskId, this.contextId, state, message));
  }

  /**
   * Writes a change; the first change of a new task is written with its creation. Later changes
   * go straight to the run, which writes them after the creation, without waiting for it.
   */
  #write(build: (state: TaskState) => TaskChange): Promise<WriteOutcome> {
    if (this.#creationError !== undefined) return Promise.reject(this.#creationError);
    if (this.#init.run !== undefined || this.#creating !== undefined) return this.#run.write(build);
    // After reply() there is no task: this rejects with a UsageError.
    if (this.#replied) return this.#ensureTask().then(() => this.#run.write(build));
    const { created, written } = this.#run.createWith(this.message, build);
    this.#creating = created.then((task) => {
      this.#resolveOutcome({ kind: 'task', task });
      return task;
    });
    // A failed creation reaches the agent through `written`, and any later change rejects too.
    this.#creating.catch(this.#creationFailed);
    return written;
  }

  readonly #creationFailed = (error: unknown): void => {
    this.#creationError = asError(error);
  };

  reply(content: MessageContent, options: { metadata?: Struct } = {}): Promise<void> {
    if (this.#replied) return Promise.reject(new UsageError('reply() can be called only once'));
    if (this.#creating !== undefined || this.#init.run !== undefined) {
      return Promise.reject(
        new UsageError(
          this.#init.run !== undefined
            ? `This message continues task ${this.taskId}; answer with complete(message) or inputRequired(message) instead of reply()`
            : 'reply() must come before any task change; this execution already works on a task',
        ),
      );
    }
    this.#replied = true;
    const message = agentMessageOf(content, { contextId: this.contextId });
    if (options.metadata !== undefined) message.metadata = options.metadata;
    this.#resolveOutcome({ kind: 'message', message });
    return Promise.resolve();
  }

  working(message?: MessageContent): Promise<void> {
    return this.#change(
      'TASK_STATE_WORKING',
      message === undefined ? undefined : agentMessageOf(message, this),
    );
  }

  async artifact(
    content: MessageContent | Artifact,
    options: ArtifactUpdateOptions = {},
  ): Promise<string> {
    const artifact = artifactOf(content, options);
    await this.#write((state) =>
      artifactChange(
        this.taskId,
        this.contextId,
        state,
        artifact,
        options.append === true,
        options.lastChunk === true,
      ),
    );
    return artifact.artifactId;
  }

  async append(
    artifactId: string,
    content: MessageContent,
    options: { lastChunk?: boolean } = {},
  ): Promise<void> {
    await this.artifact(content, {
      artifactId,
      append: true,
      lastChunk: options.lastChunk === true,
    });
  }

  inputRequired(message: MessageContent): Promise<void> {
    return this.#change('TASK_STATE_INPUT_REQUIRED', agentMessageOf(message, this));
  }

  authRequired(message: MessageContent): Promise<void> {
    return this.#change('TASK_STATE_AUTH_REQUIRED', agentMessageOf(message, this));
  }

  complete(message?: MessageContent): Promise<void> {
    return this.#change(
      'TASK_STATE_COMPLETED',
      message === undefined ? undefined : agentMessageOf(message, this),
    );
  }

  fail(reason?: MessageContent): Promise<void> {
    return this.#change(
      'TASK_STATE_FAILED',
      reason === undefined ? undefined : agentMessageOf(reason, this),
    );
  }

  reject(reason?: MessageContent): Promise<void> {
    return this.#change(
      'TASK_STATE_REJECTED',
      reason === undefined ? undefined : agentMessageOf(reason, this),
    );
  }
}
