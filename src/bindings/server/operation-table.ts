/**
 * The operation table: the end of every interceptor chain, where an operation becomes the call of
 * its request-handler method. One typed entry per operation, so that a new operation in the proto
 * fails compilation until it is wired here, and every binding dispatches through the same table.
 */

import type { AgentCard, AgentInterface } from '../../protocol/generated/types.js';
import type { OperationName, OperationRequest } from '../../protocol/operations.js';
import type { A2ARequestHandler } from '../../runtime/request-handler.js';
import type { OperationResult, ServerCall, ServerCallHandler } from './server-interceptor.js';

type Invoker<N extends OperationName> = (
  handler: A2ARequestHandler,
  call: ServerCall,
  request: OperationRequest<N>,
) => Promise<OperationResult<N>>;

/** Adds `supportedInterfaces` after `description`, where the proto declares it. */
export function cardWithInterfaces(
  card: Omit<AgentCard, 'supportedInterfaces'>,
  interfaces: AgentInterface[],
): AgentCard {
  const { name, description, ...rest } = card;
  return { name, description, supportedInterfaces: interfaces, ...rest };
}

const EMPTY_RESULT: Record<string, never> = Object.freeze({});

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
  // The interfaces depend on where the call came in (the URL's host, the gRPC authority).
  GetExtendedAgentCard: async (handler, call, request) =>
    cardWithInterfaces(await handler.getExtendedAgentCard(call, request), call.agentInterfaces()),
  DeleteTaskPushNotificationConfig: async (handler, call, request) => {
    await handler.deleteTaskPushNotificationConfig(call, request);
    return EMPTY_RESULT;
  },
};

/**
 * The handler at the end of an agent's chain: each operation calls its method of `handler`;
 * resolves to the proto's response message, or to the event stream of a streaming operation.
 */
export function operationTable(handler: A2ARequestHandler): ServerCallHandler {
  return <N extends OperationName>(operation: N, call: ServerCall, request: OperationRequest<N>) =>
    (invokers[operation] as Invoker<N>)(handler, call, request);
}
