/**
 * Admitting an incoming message: checking it, then either beginning a new task's execution or
 * resuming the interrupted task it continues. A task never has two executions: a message to a
 * task that is `SUBMITTED` or `WORKING` is refused with `UnsupportedOperationError`, and of
 * several messages racing to resume an interrupted task exactly one wins (the runtime makes the
 * resume a conditional store write); the others are refused the same way.
 */

import type { Message, SendMessageRequest, Task } from '../protocol/generated/types.js';
import { InvalidParamsError, UnsupportedOperationError } from '../protocol/errors.js';
import { isTerminalState } from '../protocol/task-state.js';
import type { TaskScope } from '../stores/task-store.js';
import type { AgentDefinition } from './agent.js';
import { checkInputMediaTypes } from './agent-capabilities.js';
import type { CallContext } from './call-context.js';
import { readTask } from './read-task.js';
import { TaskExecution } from './task-execution.js';
import { keepOriginOf, linkReferencedTasks, linkToOrigin } from './task-trace-links.js';
import type { TaskRun } from './task-run.js';
import type { TaskRuntimeEngine } from './task-runtime.js';
import { newTimeOrderedUuid } from '../protocol/uuid.js';
import { messageInTask } from '../protocol/copies.js';
import { TaskBudget, type TaskContentLimitValues } from './task-content-limits.js';

/** What admission needs from the agent's request handler. */
export interface IntakeContext {
  readonly agent: AgentDefinition;
  readonly runtime: TaskRuntimeEngine;
  /** Who owns the executions admitted here (the request handler), for its shutdown. */
  readonly owner: object;
  readonly inputModes: readonly string[];
  /** How long a message to an interrupted task waits for the previous execution to return. */
  readonly resumeWaitMs: number;
  /** What one task may hold; unlimited when absent. */
  readonly contentLimits?: TaskContentLimitValues | undefined;
}

/** The caller, as admission sees it. */
export interface IntakeCaller {
  readonly call: CallContext;
  readonly scope: TaskScope;
  /** The requested extensions the agent supports. */
  readonly extensions: readonly string[];
}

/**
 * Checks a message and builds the (not yet started) execution that answers it: at once for a new
 * task, which reads nothing from the store, or once the task it continues is read and resumed.
 * Throws (a new task) or rejects (a continued one) with the error that refuses the message.
 */
export function admitMessage(
  context: IntakeContext,
  caller: IntakeCaller,
  request: SendMessageRequest,
): TaskExecution | Promise<TaskExecution> {
  const incoming = request.message;
  if (incoming.role !== 'ROLE_USER') {
    throw InvalidParamsError.fromViolations([
      {
        field: 'message.role',
        description: `must be ROLE_USER for a message sent to an agent, got ${incoming.role}`,
      },
    ]);
  }
  checkInputMediaTypes(incoming.parts, context.inputModes);
  if (incoming.taskId === undefined || incoming.taskId === '') {
    const { store, logger } = context.runtime;
    // Only when the call's span records and the message names tasks: else nothing is read.
    const linking = linkReferencedTasks(store, caller.scope, incoming, logger);
    if (linking !== undefined) return linking.then(() => begin(context, caller, request));
    return begin(context, caller, request);
  }
  return resume(context, caller, request, incoming.taskId);
}

/** The execution of a new task, which keeps the trace context of the call admitting it. */
function begin(
  context: IntakeContext,
  caller: IntakeCaller,
  request: SendMessageRequest,
): TaskExecution {
  const incoming = request.message;
  const contextId =
    incoming.contextId === undefined || incoming.contextId === ''
      ? newTimeOrderedUuid()
      : incoming.contextId;
  const message = messageInTask(incoming, newTimeOrderedUuid(), contextId);
  const run = context.runtime.begin(
    caller.scope,
    { taskId: message.taskId as string, contextId },
    context.owner,
  );
  keepOriginOf(run);
  if (context.contentLimits !== undefined) {
    run.limitContent(TaskBudget.forNewTask(context.contentLimits));
  }
  return execution(context, caller, request, message, run);
}

async function resume(
  context: IntakeContext,
  caller: IntakeCaller,
  request: SendMessageRequest,
  taskId: string,
): Promise<TaskExecution> {
  const incoming = request.message;
  const { scope } = caller;
  const limits = context.contentLimits;
  // With a history limit, the read brings up to that many messages: enough to tell a full one.
  const stored = await readTask(context.runtime.store, scope, taskId, limits?.historyLength ?? 0);
  // The continuing call (perhaps on another replica) is its caller's; it links to the task's origin.
  linkToOrigin(stored, taskId);
  await linkReferencedTasks(context.runtime.store, scope, incoming, context.runtime.logger);
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
  const kept = stored.task.history?.length ?? 0;
  if (limits !== undefined && kept >= limits.historyLength) {
    context.runtime.logger.warn(
      { taskId, limit: 'historyLength', max: limits.historyLength },
      'a message was refused by a task content limit',
    );
    throw new UnsupportedOperationError(
      `Task ${taskId} keeps ${kept} messages in its history, the most it may (limit historyLength ${limits.historyLength}); start a new task in the same context`,
      { metadata: { taskId, limit: 'historyLength', max: String(limits.historyLength) } },
    );
  }
  const message = messageInTask(incoming, taskId, contextId);
  const outcome = await context.runtime.resume(scope, stored, message, {
    owner: context.owner,
    waitMs: context.resumeWaitMs,
  });
  switch (outcome.kind) {
    case 'resumed':
      if (limits !== undefined) outcome.run.limitContent(TaskBudget.forTask(limits, outcome.task));
      return execution(context, caller, request, message, outcome.run, outcome.task);
    case 'ended':
      throw new UnsupportedOperationError(
        `Task ${taskId} is ${outcome.state} and accepts no more messages`,
      );
    case 'busy':
      throw new UnsupportedOperationError(
        `Task ${taskId} is still being worked on (${outcome.state}); send the next message once it is TASK_STATE_INPUT_REQUIRED or TASK_STATE_AUTH_REQUIRED, or cancel it`,
        { metadata: { taskId, state: outcome.state } },
      );
  }
}

/** The execution of an admitted message on `run`: a new task, or the `resumed` one. */
function execution(
  context: IntakeContext,
  caller: IntakeCaller,
  request: SendMessageRequest,
  message: Message,
  run: TaskRun,
  resumed?: Task,
): TaskExecution {
  const { call } = caller;
  return new TaskExecution({
    agent: context.agent,
    run,
    store: context.runtime.store,
    logger: context.runtime.logger,
    scope: caller.scope,
    caller: { principal: call.principal, tenant: call.tenant },
    message,
    task: resumed,
    extensions: caller.extensions,
    acceptedOutputModes: request.configuration?.acceptedOutputModes,
    metadata: request.metadata,
  });
}
