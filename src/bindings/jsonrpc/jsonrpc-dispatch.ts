/**
 * From a JSON-RPC method name to the request handler: the params are validated against the
 * operation's request message (spec 3.3.2: every input is validated before processing) and the
 * matching {@link A2ARequestHandler} method is called. The table is typed per operation, so a new
 * operation in the proto fails compilation until it is wired here.
 */

import { InvalidParamsError } from '../../protocol/errors.js';
import type { AgentCard, AgentInterface } from '../../protocol/generated/types.js';
import {
  operations,
  type OperationName,
  type OperationRequest,
} from '../../protocol/operations.js';
import { parseMessage } from '../../protocol/validation.js';
import type { CallContext } from '../../runtime/call-context.js';
import type { A2ARequestHandler, EventStream } from '../../runtime/request-handler.js';

/** What the binding needs besides the handler to answer an operation. */
export interface DispatchEnvironment {
  /** The interfaces to add to the extended card (they depend on where the agent is mounted). */
  readonly agentInterfaces?: (() => AgentInterface[]) | undefined;
}

type Invoker<N extends OperationName> = (
  handler: A2ARequestHandler,
  call: CallContext,
  request: OperationRequest<N>,
  environment: DispatchEnvironment,
) => Promise<unknown>;

/** Adds `supportedInterfaces` after `description`, where the proto declares it. */
function withInterfaces(
  card: Omit<AgentCard, 'supportedInterfaces'>,
  environment: DispatchEnvironment,
): AgentCard {
  const { name, description, ...rest } = card;
  const supportedInterfaces = environment.agentInterfaces?.() ?? [];
  return { name, description, supportedInterfaces, ...rest };
}

const EMPTY_RESULT = Object.freeze({});

const invokers: { readonly [N in OperationName]: Invoker<N> } = {
  SendMessage: (handler, call, request) => handler.sendMessage(call, request),
  SendStreamingMessage: (handler, call, request) => handler.sendStreamingMessage(call, request),
  GetTask: (handler, call, request) => handler.getTask(call, request),
  ListTasks: (handler, call, request) => handler.listTasks(call, request),
  CancelTask: (handler, call, request) => handler.cancelTask(call, request),
  SubscribeToTask: (handler, call, request) => handler.subscribeToTask(call, request),
  CreateTaskPushNotificationConfig: (handler, call, request) =>
    handler.createTaskPushNotificationConfig(call, request),
  GetTaskPushNotificationConfig: (handler, call, request) =>
    handler.getTaskPushNotificationConfig(call, request),
  ListTaskPushNotificationConfigs: (handler, call, request) =>
    handler.listTaskPushNotificationConfigs(call, request),
  GetExtendedAgentCard: async (handler, call, request, environment) =>
    withInterfaces(await handler.getExtendedAgentCard(call, request), environment),
  DeleteTaskPushNotificationConfig: async (handler, call, request) => {
    await handler.deleteTaskPushNotificationConfig(call, request);
    return EMPTY_RESULT;
  },
};

/**
 * Validates `params` (an object; the caller has checked) as the operation's request message.
 * Field paths in the violations are relative to `params` (`message.parts[0].text`).
 *
 * @throws InvalidParamsError with a `BadRequest` detail listing every violated field.
 */
export function parseParams<N extends OperationName>(
  method: N,
  params: object,
): OperationRequest<N> {
  const result = parseMessage(operations[method].requestType, params, { root: 'params' });
  if (!result.success) throw InvalidParamsError.fromViolations(result.violations);
  return result.value;
}

/** One call of an operation: which, by whom, with what. */
export interface Invocation<N extends OperationName> {
  readonly method: N;
  readonly call: CallContext;
  readonly request: OperationRequest<N>;
}

/** Calls the handler method of a non-streaming operation; resolves to its JSON result. */
export function invokeOperation<N extends OperationName>(
  handler: A2ARequestHandler,
  invocation: Invocation<N> & { readonly environment: DispatchEnvironment },
): Promise<unknown> {
  const { method, call, request, environment } = invocation;
  return invokers[method](handler, call, request, environment);
}

/** Calls the handler method of a streaming operation. */
export function invokeStreamingOperation(
  handler: A2ARequestHandler,
  invocation: Invocation<'SendStreamingMessage'> | Invocation<'SubscribeToTask'>,
): Promise<EventStream> {
  return invocation.method === 'SendStreamingMessage'
    ? handler.sendStreamingMessage(invocation.call, invocation.request)
    : handler.subscribeToTask(invocation.call, invocation.request);
}

/**
 * The task a call concerned, for the request log: from the request (`id`, `taskId`,
 * `message.taskId`) or from what was answered (a `Task`, a `SendMessageResponse.task`, a stream
 * event). Never reads message contents.
 */
export function taskIdOf(request: unknown, result: unknown): string | undefined {
  return (
    stringField(request, 'taskId') ??
    messageTaskId(request) ??
    taskIdOfValue(result) ??
    (isRecord(request) && typeof request.id === 'string' ? request.id : undefined)
  );
}

function taskIdOfValue(value: unknown): string | undefined {
  if (!isRecord(value)) return undefined;
  const task = value.task;
  if (isRecord(task) && typeof task.id === 'string') return task.id;
  for (const key of ['statusUpdate', 'artifactUpdate'] as const) {
    const taskId = stringField(value[key], 'taskId');
    if (taskId !== undefined) return taskId;
  }
  return messageTaskId(value) ?? (isRecord(value.status) ? stringField(value, 'id') : undefined);
}

function messageTaskId(value: unknown): string | undefined {
  return isRecord(value) ? stringField(value.message, 'taskId') : undefined;
}

function stringField(value: unknown, key: string): string | undefined {
  if (!isRecord(value)) return undefined;
  const field = value[key];
  return typeof field === 'string' && field !== '' ? field : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
