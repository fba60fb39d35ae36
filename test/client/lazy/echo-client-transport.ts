/**
 * A transport loaded only when a card selects its binding: evaluating this module is recorded, as
 * a gRPC transport's module would load its HTTP/2 library. It answers every unary call with a
 * completed task whose id is the request's, and streams that task once.
 */

import type {
  ClientTransport,
  ClientTransportContext,
  StreamCallResult,
  Task,
} from '../../../src/client.js';
import { moduleLoads } from './module-loads.js';

moduleLoads.push('echo-client-transport');

/** The items as a stream that yields each one asynchronously, as a connection would. */
async function* streamOf<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const item of items) {
    await Promise.resolve();
    yield item;
  }
}

function taskOf(message: object): Task {
  const id = 'id' in message && typeof message.id === 'string' ? message.id : 'new';
  return { id, status: { state: 'TASK_STATE_COMPLETED' } };
}

export function createEchoClientTransport(context: ClientTransportContext): ClientTransport {
  return {
    protocolBinding: context.agentInterface.protocolBinding,
    unary: (call) =>
      Promise.resolve({
        stream: false,
        message: taskOf(call.message) as never,
        headers: new Headers(),
      }),
    stream(call): Promise<StreamCallResult> {
      const items = streamOf([{ id: '1', payload: { task: taskOf(call.message) } }]);
      return Promise.resolve({ stream: true, message: items, headers: new Headers() });
    },
  };
}
