/**
 * A task interrupted on one replica, continued at once through another. Replica A answers the
 * blocking SendMessage as soon as INPUT_REQUIRED is stored, and gives up the task's lease only
 * when its agent returns; a client that sends the next message through replica B straight away
 * must be served (B waits for the lease), not told the task is busy.
 */

import { describe, expect, it } from 'vitest';
import { defineAgent, openTaskStore } from '../../src/server.js';
import { inProcessServersOn } from './support/in-process.js';
import { textOf, userText } from './support/json-rpc.js';
import { POSTGRES_URL, freshSchema, skipWithoutPostgres } from './support/stores.js';

const serve = inProcessServersOn();

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

/** A replica on `schema`; the first one opened drops the schema once it is closed. */
async function replica(schema: string, drop?: () => Promise<void>) {
  const store = await openTaskStore({
    kind: 'postgres',
    connectionString: POSTGRES_URL ?? '',
    schema,
  });
  return (await serve(store, { '': agent }, drop)).endpoint();
}

describe('A task interrupted on replica A, continued through replica B', () => {
  if (skipWithoutPostgres()) return;

  it('is served by B as soon as A has answered, while A still holds the lease', async () => {
    const schema = freshSchema();
    const a = await replica(schema.schema, schema.drop);
    const b = await replica(schema.schema);
    const asked = await a.sendTask(userText('start'));
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const answered = await b.sendTask(userText('more', { taskId: asked.id }));
    expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
    expect(textOf(answered.status.message)).toBe('got more');
  });
});
