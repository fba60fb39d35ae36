/**
 * One agent, three doors (spec 5.1): a task created through gRPC is streamed through HTTP+JSON
 * and canceled through JSON-RPC, on one server with all three bindings, over every store. Each
 * binding is reached through the interface the agent card lists for it.
 */

import { expect, it } from 'vitest';
import { commandAgent, testCard } from '../support/agents.js';
import { describeBehaviour } from '../support/behaviour-env.js';
import { connectDriver } from '../support/drivers/bindings.js';
import { send } from '../support/messages.js';

const agent = commandAgent({ card: testCard('Three doors') });

describeBehaviour('One agent, three doors', (env) => {
  // The block's binding is the one requests start from; every block crosses all three.
  it('creates a task over gRPC, streams it over HTTP+JSON, cancels it over JSON-RPC', async () => {
    const server = await env.serve(agent, { grpc: true });
    const [grpc, rest, jsonRpc] = await Promise.all([
      connectDriver('grpc', server.url),
      connectDriver('rest', server.url),
      connectDriver('jsonrpc', server.url),
    ]);
    const created = await grpc.sendTask(send('wait', {}, { returnImmediately: true }));
    const stream = await rest.subscribeToTask({ id: created.id });
    const snapshot = await stream.next();
    expect(snapshot?.response.task?.id).toBe(created.id);
    const canceled = await jsonRpc.cancelTask({ id: created.id });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    const rest_ = await stream.rest();
    expect(rest_.at(-1)?.response.statusUpdate?.status.state).toBe('TASK_STATE_CANCELED');
    for (const driver of [grpc, rest, jsonRpc]) {
      expect(withoutEmptyLists(await driver.getTask({ id: created.id }))).toEqual(
        withoutEmptyLists(canceled),
      );
    }
    const listed = await grpc.listTasks({});
    expect(listed.tasks.map((task) => task.id)).toEqual([created.id]);
  });
});

/**
 * The value with its empty lists left out: protobuf does not tell an empty repeated field from an
 * absent one, so gRPC answers `artifacts: []` as no `artifacts` at all (ProtoJSON omits both).
 */
function withoutEmptyLists(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (_key, field: unknown) =>
      Array.isArray(field) && field.length === 0 ? undefined : field,
    ),
  );
}
