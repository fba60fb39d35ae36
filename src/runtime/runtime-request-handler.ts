/**
 * The task runtime behind every binding: {@link createRuntimeRequestHandler} turns an agent definition
 * and the runtime of a task store into an {@link A2ARequestHandler}. Admitting messages is
 * `message-intake.ts`'s business (a task never has two executions), running them the
 * `TaskRuntime`'s; this module answers the operations.
 */

import type {
  AgentCapabilities,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTasksRequest,
  ListTasksResponse,
  ListTaskPushNotificationConfigsResponse,
  SendMessageRequest,
  SendMessageResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '../protocol/generated/types.js';
import {
  InternalError,
  InvalidParamsError,
  TaskNotCancelableError,
  UnsupportedOperationError,
} from '../protocol/errors.js';
import { isTerminalState } from '../protocol/task-state.js';
import type {
  StoredTask,
  TaskReadScope,
  TaskStore,
  TaskViewOptions,
} from '../stores/task-store.js';
import type { AgentDefinition } from './agent.js';
import {
  acceptedInputModes,
  completeCard,
  effectiveCapabilities,
  extendedCardOf,
  negotiateExtensions,
  requireStreaming,
  type RuntimeCard,
} from './agent-capabilities.js';
import type { CallContext } from './call-context.js';
import { listTasks } from './list-tasks.js';
import { silentLogger, type Logger } from './logger.js';
import type { A2ARequestHandler, EventStream } from './request-handler.js';
import { streamEvent } from './stream-event.js';
import { HandlerStreams, singleEvent } from './handler-streams.js';
import { engineOf, type TaskRuntimeEngine } from './task-runtime.js';
import { admitMessage, type IntakeContext } from './message-intake.js';
import { readTask } from './read-task.js';
import { linkToOrigin } from './task-trace-links.js';
import { TaskScopes } from './task-scopes.js';
import { taskContentLimitsOf, type TaskContentLimitValues } from './task-content-limits.js';
import type { TaskAccessPolicy } from './task-access-policy.js';
import { waitAtMost } from './wait-at-most.js';
import { ownRuntime, storeOf } from './handler-runtime.js';
import { storeReadiness, type Readiness } from './readiness.js';
import type { TaskExecution } from './task-execution.js';
import type { PushDeliveryStatus, PushDeliveryStatusRequest } from './push-notifications.js';
import type { PushDeliveryStatusSource } from './push-delivery-status-source.js';
import { PushConfigOperations } from './push-config-operations.js';
import type { RequestHandlerOptions } from './request-handler-options.js';
import { withJsonText } from '../protocol/json-text.js';

export type { RequestHandlerOptions } from './request-handler-options.js';

/** The view of a task with its whole history, shared by every call that asks for no other. */
const WHOLE_TASK: TaskViewOptions = Object.freeze({});

/** How long executions may take to return once their task was canceled at shutdown. */
const SHUTDOWN_GRACE_MS = 1_000;

/**
 * Creates the request handler of one agent, over `options.runtime` or `options.store` — or the
 * store `defaultStore` makes when neither is given (the entry point supplies the memory store,
 * which the runtime does not depend on).
 */
export function createRuntimeRequestHandler(
  options: RequestHandlerOptions,
  defaultStore?: () => TaskStore,
): A2ARequestHandler {
  return new RuntimeRequestHandler(options, defaultStore);
}

class RuntimeRequestHandler implements A2ARequestHandler, PushDeliveryStatusSource {
  readonly card: RuntimeCard;
  readonly capabilities: AgentCapabilities;
  readonly #agent: AgentDefinition;
  readonly #runtime: TaskRuntimeEngine;
  readonly #ownsRuntime: boolean;
  readonly #scopes: TaskScopes;
  readonly #store: TaskStore;
  readonly #logger: Logger;
  readonly #streams: HandlerStreams;
  readonly #resumeWaitMs: number;
  readonly #contentLimits: TaskContentLimitValues | undefined;
  readonly #accessPolicy: TaskAccessPolicy | undefined;
  readonly #inputModes: string[];
  readonly #push: PushConfigOperations;
  /** What admitting a message needs, the same for every message. */
  readonly #intake: IntakeContext;
  readonly #shutdown = new AbortController();

  constructor(options: RequestHandlerOptions, defaultStore: (() => TaskStore) | undefined) {
    this.#agent = options.agent;
    this.#scopes = new TaskScopes(options.agentName ?? options.agent.card.name);
    const shared = options.runtime === undefined ? undefined : engineOf(options.runtime);
    this.#logger = options.logger ?? shared?.logger ?? silentLogger;
    this.#ownsRuntime = shared === undefined;
    this.#runtime = shared ?? ownRuntime(storeOf(options.store, defaultStore), this.#logger);
    this.#store = this.#runtime.store;
    this.#streams = new HandlerStreams({
      store: this.#store,
      hub: this.#runtime.hub,
      logger: this.#logger,
      bufferSize: options.streamBufferSize ?? 256,
    });
    this.#resumeWaitMs = options.resumeWaitMs ?? 5_000;
    this.#contentLimits =
      options.contentLimits === undefined ? undefined : taskContentLimitsOf(options.contentLimits);
    this.#accessPolicy = options.accessPolicy;
    this.capabilities = effectiveCapabilities(
      options.agent,
      this.#logger,
      options.push !== undefined,
    );
    // An agent that declares pushNotifications: false keeps them off.
    this.#push = new PushConfigOperations(
      this.capabilities.pushNotifications === true ? options.push : undefined,
      this.#scopes,
    );
    this.card = completeCard(options.agent.card, this.capabilities);
    this.#inputModes = acceptedInputModes(this.card);
    this.#intake = {
      agent: this.#agent,
      runtime: this.#runtime,
      owner: this,
      inputModes: this.#inputModes,
      resumeWaitMs: this.#resumeWaitMs,
      contentLimits: this.#contentLimits,
    };
  }

  #getStored(call: CallContext, taskId: string, historyLength?: number): Promise<StoredTask> {
    return readTask(this.#store, this.#scopes.of(call), taskId, historyLength);
  }

  /** Where the caller's reads look: its own tasks, or every owner's when the policy says so. */
  #readScopeOf(call: CallContext): TaskReadScope {
    const granted = this.#accessPolicy?.({ principal: call.principal, tenant: call.tenant });
    return granted?.readAllOwners === true
      ? this.#scopes.everyOwnerOf(call)
      : this.#scopes.of(call);
  }

  negotiateExtensions(call: CallContext): readonly string[] {
    return negotiateExtensions(this.capabilities, call.requestedExtensions);
  }

  /** Validates a message and prepares the execution that will answer it (not started yet). */
  async #admit(call: CallContext, request: SendMessageRequest): Promise<TaskExecution> {
    if (this.#shutdown.signal.aborted) {
      throw new UnsupportedOperationError('The server is shutting down; retry on another replica');
    }
    const checking = this.#push.checkInline(call, request);
    if (checking !== undefined) await checking;
    const admitted = admitMessage(
      this.#intake,
      { scope: this.#scopes.of(call), call, extensions: this.negotiateExtensions(call) },
      request,
    );
    // A new task's execution is prepared at once: no promise to wait for.
    const execution = admitted instanceof Promise ? await admitted : admitted;
    this.#push.withCreation(call, request, execution);
    return execution;
  }

  /** Starts an admitted execution; its run ends with it (and gives up its lease). */
  #start(execution: TaskExecution): void {
    void execution.start().then(() => this.#runtime.end(execution.run));
  }

  async sendMessage(call: CallContext, request: SendMessageRequest): Promise<SendMessageResponse> {
    const execution = await this.#admit(call, request);
    // The task it returns is then at hand, not read back from the store.
    execution.run.keepProjection();
    const pushFrom = execution.task === undefined ? 0 : execution.run.seq;
    this.#start(execution);
    const outcome = await execution.outcome;
    if (outcome.kind === 'message') return { message: outcome.message };
    if (outcome.kind === 'refused') throw outcome.error;
    const attaching = this.#push.attachInline(call, request, execution, pushFrom);
    if (attaching !== undefined) await attaching;
    const historyLength = request.configuration?.historyLength;
    if (request.configuration?.returnImmediately !== true) {
      // Settles on a terminal or interrupted state once it is stored, also one written by
      // another replica (the run refreshes itself when told) — or when the execution ends.
      await Promise.race([execution.run.untilSettled(), execution.finished]);
    }
    const kept = execution.run.viewOf(historyLength === undefined ? WHOLE_TASK : { historyLength });
    if (kept !== undefined) return { task: kept };
    const stored = await this.#store.getTask(
      this.#scopes.of(call),
      execution.taskId,
      historyLength === undefined ? undefined : { historyLength },
    );
    if (stored === undefined) {
      throw new InternalError('The task could not be stored', {
        metadata: { taskId: execution.taskId },
      });
    }
    return { task: taskOf(stored) };
  }

  async sendStreamingMessage(call: CallContext, request: SendMessageRequest): Promise<EventStream> {
    requireStreaming(this.capabilities, 'SendStreamingMessage');
    const execution = await this.#admit(call, request);
    const resumed = execution.task !== undefined;
    const pushFrom = resumed ? execution.run.seq : 0;
    const stream = this.#streams.open(execution.taskId, {
      afterSeq: resumed ? execution.run.seq : 0,
      first: resumed ? streamEvent(execution.run.seq, { task: execution.task }) : undefined,
      catchUp: false,
    });
    this.#start(execution);
    const outcome = await execution.outcome;
    if (outcome.kind === 'message') {
      await stream.return();
      return singleEvent(streamEvent(undefined, { message: outcome.message }));
    }
    if (outcome.kind === 'refused') {
      await stream.return();
      throw outcome.error;
    }
    if (outcome.task === undefined && !resumed) {
      await stream.return();
      throw new InternalError('The task could not be stored', {
        metadata: { taskId: execution.taskId },
      });
    }
    try {
      const attaching = this.#push.attachInline(call, request, execution, pushFrom);
      if (attaching !== undefined) await attaching;
    } catch (error) {
      await stream.return();
      throw error;
    }
    return stream;
  }

  async getTask(call: CallContext, request: GetTaskRequest): Promise<Task> {
    const scope = this.#readScopeOf(call);
    return taskOf(await readTask(this.#store, scope, request.id, request.historyLength));
  }

  listTasks(call: CallContext, request: ListTasksRequest): Promise<ListTasksResponse> {
    return listTasks(this.#store, this.#readScopeOf(call), request);
  }

  async cancelTask(call: CallContext, request: CancelTaskRequest): Promise<Task> {
    const stored = await this.#getStored(call, request.id, 0);
    linkToOrigin(stored, request.id);
    const notCancelable = (state: string): TaskNotCancelableError =>
      new TaskNotCancelableError(`Task ${request.id} is ${state} and can no longer be canceled`, {
        metadata: { taskId: request.id, state },
      });
    if (isTerminalState(stored.state)) throw notCancelable(stored.state);
    const canceled = await this.#runtime.cancel(this.#scopes.of(call), stored);
    const after = await this.#getStored(call, request.id);
    if (!canceled && after.state !== 'TASK_STATE_CANCELED') throw notCancelable(after.state);
    return after.task;
  }

  async subscribeToTask(call: CallContext, request: SubscribeToTaskRequest): Promise<EventStream> {
    requireStreaming(this.capabilities, 'SubscribeToTask');
    const stored = await readTask(this.#store, this.#readScopeOf(call), request.id);
    // The subscriber's span, in the subscriber's trace, links to where the task began.
    linkToOrigin(stored, request.id);
    if (call.afterSeq !== undefined) {
      const afterSeq = checkedAfterSeq(call.afterSeq, stored.seq);
      if (isTerminalState(stored.state) && afterSeq >= stored.seq) return singleEvent(undefined);
      return this.#streams.open(request.id, { afterSeq, catchUp: true });
    }
    if (isTerminalState(stored.state)) {
      throw new UnsupportedOperationError(
        `Task ${request.id} is ${stored.state}; there is nothing to subscribe to (use GetTask, or resume with Last-Event-ID)`,
        { metadata: { taskId: request.id, state: stored.state } },
      );
    }
    // Events written between the read above and this subscription are caught up from the store.
    return this.#streams.open(request.id, {
      afterSeq: stored.seq,
      first: streamEvent(stored.seq, { task: stored.task }),
      catchUp: true,
    });
  }

  createTaskPushNotificationConfig(
    call: CallContext,
    request: TaskPushNotificationConfig,
  ): Promise<TaskPushNotificationConfig> {
    return this.#push.create(call, request);
  }

  getTaskPushNotificationConfig(
    call: CallContext,
    request: GetTaskPushNotificationConfigRequest,
  ): Promise<TaskPushNotificationConfig> {
    return this.#push.get(call, request);
  }

  listTaskPushNotificationConfigs(
    call: CallContext,
    request: ListTaskPushNotificationConfigsRequest,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.#push.list(call, request);
  }

  deleteTaskPushNotificationConfig(
    call: CallContext,
    request: DeleteTaskPushNotificationConfigRequest,
  ): Promise<void> {
    return this.#push.delete(call, request);
  }

  /** Readiness for `GET /readyz`: the runtime started, the store answers. */
  checkReadiness(): Promise<Readiness> {
    return storeReadiness(this.#runtime.startState, this.#store);
  }

  getPushDeliveryStatus(
    call: CallContext,
    request: PushDeliveryStatusRequest,
  ): Promise<PushDeliveryStatus> {
    return this.#push.deliveryStatus(call, request);
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- errors must become rejections
  async getExtendedAgentCard(): Promise<RuntimeCard> {
    return extendedCardOf(this.#agent, this.capabilities);
  }

  async shutdown(options: { deadlineMs?: number } = {}): Promise<void> {
    if (!this.#shutdown.signal.aborted) this.#shutdown.abort();
    const deadline = Date.now() + (options.deadlineMs ?? 10_000);
    const remaining = (): number => Math.max(0, deadline - Date.now());
    // The runtime is shared by the agents of a store: this handler waits for its own runs only.
    const pending = this.#runtime.runsOf(this).map((live) => live.ended);
    await waitAtMost(Promise.all(pending), remaining());
    const left = this.#runtime.runsOf(this);
    for (const { run } of left) run.abort();
    await Promise.all(left.map(({ run }) => run.cancel()));
    // Canceled tasks are recorded; an agent that ignores its signal gets a moment to return,
    // not the power to hold the process.
    await waitAtMost(Promise.all(left.map((live) => live.ended)), SHUTDOWN_GRACE_MS);
    // Streams get the rest of the deadline, and at least the grace period for the events of
    // tasks canceled just now.
    await this.#streams.close(Math.max(remaining(), SHUTDOWN_GRACE_MS));
    if (this.#ownsRuntime) await this.#runtime.close();
  }
}

function checkedAfterSeq(afterSeq: number, lastSeq: number): number {
  if (!Number.isSafeInteger(afterSeq) || afterSeq < 0 || afterSeq > lastSeq) {
    throw InvalidParamsError.fromViolations([
      {
        field: 'Last-Event-ID',
        description: `must be the id of an event of this task (0 to ${lastSeq}), got ${JSON.stringify(String(afterSeq))}`,
      },
    ]);
  }
  return afterSeq;
}

/** The stored task, carrying its JSON when the store has it (bindings then reuse the text). */
function taskOf(stored: StoredTask): Task {
  return stored.json === undefined ? stored.task : withJsonText(stored.task, stored.json);
}
