/**
 * Admitting an incoming message: checking it, then either preparing a new task's execution or
 * resuming the interrupted task it continues. A task never has two executions: a message to a
 * task that is `SUBMITTED` or `WORKING` is refused with `UnsupportedOperationError`, and of
 * several messages racing to resume an interrupted task exactly one wins (a conditional store
 * write); the others are refused the same way.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import type { Message, SendMessageRequest, Task } from '../protocol/generated/types.js';
import { InvalidParamsError, UnsupportedOperationError } from '../protocol/errors.js';
import { isInterruptedState, isTerminalState } from '../protocol/task-state.js';
import type { TaskScope } from '../stores/task-store.js';
import type { AgentDefinition } from './agent.js';
import { checkInputMediaTypes, pushNotificationsUnavailable } from './agent-capabilities.js';
import type { CallContext } from './call-context.js';
import { readTask } from './read-task.js';
import { TaskExecution, type TaskExecutionInit } from './task-execution.js';
import { TaskRun } from './task-run.js';
import type { TaskRuntime } from './task-runtime.js';
import { waitAtMost } from './wait-at-most.js';
import { newTimeOrderedUuid } from '../protocol/uuid.js';
import { messageInTask } from '../protocol/copies.js';

/** What admission needs from the agent's request handler. */
export interface IntakeContext {
  readonly agent: AgentDefinition;
  readonly runtime: TaskRuntime;
  readonly inputModes: readonly string[];
  /** Executions running in this process, by task id. */
  readonly executions: ReadonlyMap<string, TaskExecution>;
  /** How long a message to an interrupted task waits for the previous execution to return. */
  readonly resumeWaitMs: number;
}

/** The caller, as admission sees it. */
export interface IntakeCaller {
  readonly call: CallContext;
  readonly scope: TaskScope;
  /** The requested extensions the agent supports. */
  readonly extensions: readonly string[];
}

/** The execution of an admitted message: a new task, or the resumed `run` of one. */
function execution(
  context: IntakeContext,
  caller: IntakeCaller,
  request: SendMessageRequest,
  message: Message,
  resumed?: { readonly run: TaskRun; readonly task: Task },
): TaskExecution {
  const { call } = caller;
  const configuration = request.configuration;
  const init: TaskExecutionInit = {
    agent: context.agent,
    deps: context.runtime.deps,
    scope: caller.scope,
    caller: { principal: call.principal, tenant: call.tenant },
    message,
    extensions: caller.extensions,
    acceptedOutputModes: configuration?.acceptedOutputModes,
    requestMetadata: request.metadata,
  };
  if (resumed !== undefined) {
    init.run = resumed.run;
    init.task = resumed.task;
  }
  return new TaskExecution(init);
}

/** Checks a message and builds the (not yet started) execution that answers it. */
export async function admitMessage(
  context: IntakeContext,
  caller: IntakeCaller,
  request: SendMessageRequest,
): Promise<TaskExecution> {
  const incoming = request.message;
  if (incoming.role !== 'ROLE_USER') {
    throw InvalidParamsError.fromViolations([
      {
        field: 'message.role',
        description: `must be ROLE_USER for a message sent to an agent, got ${incoming.role}`,
      },
    ]);
  }
  if (request.configuration?.taskPushNotificationConfig !== undefined) {
    throw pushNotificationsUnavailable();
  }
  checkInputMediaTypes(incoming.parts, context.inputModes);
  if (incoming.taskId === undefined || incoming.taskId === '') {
    const contextId =
      incoming.contextId === undefined || incoming.contextId === ''
        ? newTimeOrderedUuid()
        : incoming.contextId;
    const message = messageInTask(incoming, newTimeOrderedUuid(), contextId);
    return execution(context, caller, request, message);
  }
  return await resume(context, caller, request);
}

async function resume(
  context: IntakeContext,
  caller: IntakeCaller,
  request: SendMessageRequest,
): Promise<TaskExecution> {
  const incoming = request.message;
  const { scope } = caller;
  const { runtime, executions } = context;
  const store = runtime.store;
  const taskId = incoming.taskId as string;
  let stored = await readTask(store, scope, taskId, 0);
  const contextId = stored.task.contextId ?? '';
  if (
    incoming.contextId !== undefined &&
    incoming.contextId !== '' &&
    incoming.contextId !== contextId
  ) {
    throw InvalidParamsError.fromViolations([
      {
        field: 'message.contextId',
        description: `does not match the contextId of task ${taskId} (${contextId}); omit it or send the task's contextId`,
      },
    ]);
  }
  if (isTerminalState(stored.state)) {
    throw new UnsupportedOperationError(
      `Task ${taskId} is ${stored.state} and accepts no more messages; start a new task in the same context`,
      { metadata: { taskId, state: stored.state } },
    );
  }
  const previous = executions.get(taskId);
  if (previous !== undefined && isInterruptedState(stored.state)) {
    // The agent usually returns right after interrupting; give it that moment.
    await waitAtMost(previous.done, context.resumeWaitMs);
    stored = await readTask(store, scope, taskId, 0);
  }
  const busy = (): UnsupportedOperationError =>
    new UnsupportedOperationError(
      `Task ${taskId} is still being worked on (${stored.state}); send the next message once it is TASK_STATE_INPUT_REQUIRED or TASK_STATE_AUTH_REQUIRED, or cancel it`,
      { metadata: { taskId, state: stored.state } },
    );
  if (!isInterruptedState(stored.state) || executions.has(taskId)) throw busy();
  const message = messageInTask(incoming, taskId, contextId);
  // Lease first: between the resume and a lease, another replica's sweeper would see a WORKING
  // task without a live lease and fail it. A process that is its store's only user takes none.
  const { holder, exclusive } = runtime;
  if (!exclusive && !(await leaseWithin(runtime, taskId, context.resumeWaitMs))) throw busy();
  const run = new TaskRun(context.runtime.deps, {
    scope,
    taskId,
    contextId,
    seq: stored.seq,
    state: stored.state,
  });
  if (!(await run.resume(message))) {
    if (!exclusive) await store.leases.release(taskId, holder);
    stored = await readTask(store, scope, taskId, 0);
    if (isTerminalState(stored.state)) {
      throw new UnsupportedOperationError(
        `Task ${taskId} is ${stored.state} and accepts no more messages`,
      );
    }
    throw busy();
  }
  const resumed = await readTask(store, scope, taskId);
  return execution(context, caller, request, message, { run, task: resumed.task });
}

/** Between tries for a lease another replica still holds. */
const LEASE_RETRY_MS = 10;

/**
 * Takes the lease of an interrupted task, waiting up to `waitMs` for the replica whose execution
 * interrupted it to give it up: that replica answers the client as soon as the interruption is
 * stored and releases the lease just after, when its agent returns — a client that sends its
 * next message through another replica at once must not be told the task is busy.
 */
async function leaseWithin(runtime: TaskRuntime, taskId: string, waitMs: number): Promise<boolean> {
  const { store, holder, leaseMs } = runtime;
  const deadline = Date.now() + waitMs;
  for (;;) {
    if (await store.leases.acquire(taskId, holder, leaseMs)) return true;
    if (Date.now() + LEASE_RETRY_MS > deadline) return false;
    await sleep(LEASE_RETRY_MS);
  }
}
