/**
 * A task interrupted on one replica, continued at once through another. Replica A answers the
 * blocking SendMessage as soon as INPUT_REQUIRED is stored, and gives up the task's lease only
 * when its agent returns; a client that sends the next message through replica B straight away
 * must be served (B waits for the lease), not told the task is busy.
 */

import { afterEach, describe, expect, it } from 'vitest';
import {
  createNodeServer,
  createRequestHandler,
  createTaskRuntime,
  defineAgent,
  openTaskStore,
} from '../../src/server.js';
import { AgentEndpoint, textOf, userText } from './support/json-rpc.js';
import { POSTGRES_URL, freshSchema, skipWithoutPostgres } from './support/stores.js';

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** How long A's agent goes on after asking for input, holding the lease. */
const LINGER_MS = 300;

/** Asks for input, then lingers; the next message completes the task with its text. */
const agent = defineAgent({
  card: {
    name: 'Asker',
    description: 'Asks, then lingers',
    version: '1.0.0',
    skills: [{ id: 'ask', name: 'Ask', description: 'Asks for input', tags: ['test'] }],
  },
  async execute(ctx) {
    if (ctx.task === undefined) {
      await ctx.inputRequired('what next?');
      await new Promise((resolve) => setTimeout(resolve, LINGER_MS));
      return;
    }
    await ctx.complete(`got ${ctx.text}`);
  },
});

async function replica(schema: string): Promise<AgentEndpoint> {
  const store = await openTaskStore({
    kind: 'postgres',
    connectionString: POSTGRES_URL ?? '',
    schema,
  });
  const runtime = createTaskRuntime({ store });
  await runtime.start();
  const node = createNodeServer({
    agents: [{ path: '', handler: createRequestHandler({ agent, runtime }) }],
  });
  const { url } = await node.listen({ port: 0, host: '127.0.0.1' });
  cleanups.push(async () => {
    await node.shutdown({ deadlineMs: 2_000 });
    await runtime.close();
    await store.close();
  });
  return new AgentEndpoint(`${url}/a2a`);
}

describe('A task interrupted on replica A, continued through replica B', () => {
  if (skipWithoutPostgres()) return;

  it('is served by B as soon as A has answered, while A still holds the lease', async () => {
    const schema = freshSchema();
    cleanups.push(schema.drop);
    const a = await replica(schema.schema);
    const b = await replica(schema.schema);
    const asked = await a.sendTask(userText('start'));
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const answered = await b.sendTask(userText('more', { taskId: asked.id }));
    expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
    expect(textOf(answered.status.message)).toBe('got more');
  });
});
