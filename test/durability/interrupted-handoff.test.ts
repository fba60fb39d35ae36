/**
 * A task interrupted on one replica, continued at once through another. Replica A answers the
 * blocking SendMessage as soon as INPUT_REQUIRED is stored, and gives up the task's lease only
 * when its agent returns; a client that sends the next message through replica B straight away
 * must be served (B waits for the lease), not told the task is busy. Over every binding.
 */

import { expect, it } from 'vitest';
import { defineAgent } from '../../src/server.js';
import { openTaskStore } from '../../src/stores.js';
import type { A2ADriver, BindingName } from '../support/drivers/a2a-driver.js';
import { describeMatrix } from '../support/matrix.js';
import { send, textOf } from '../support/messages.js';
import { inProcessServersOn } from '../support/per-test-servers.js';
import { POSTGRES_URL, freshSchema } from '../support/stores.js';

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

/** Starts replicas of `binding`: servers in this process, each with its own store on a schema. */
function replicas(
  binding: BindingName,
): (schema: string, drop?: () => Promise<void>) => Promise<A2ADriver> {
  const serve = inProcessServersOn(binding);
  return async (schema, drop) => {
    const store = await openTaskStore({
      kind: 'postgres',
      connectionString: POSTGRES_URL ?? '',
      schema,
    });
    return (await serve(store, { '': agent }, drop)).agent;
  };
}

describeMatrix(
  'A task interrupted on replica A, continued through replica B',
  ({ binding }) => {
    const replica = replicas(binding);

    it('is served by B as soon as A has answered, while A still holds the lease', async () => {
      const schema = freshSchema();
      // The first one opened drops the schema once it is closed.
      const a = await replica(schema.schema, schema.drop);
      const b = await replica(schema.schema);
      const asked = await a.sendTask(send('start'));
      expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const answered = await b.sendTask(send('more', { taskId: asked.id }));
      expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
      expect(textOf(answered.status.message)).toBe('got more');
    });
  },
  { stores: ['postgres'] },
);
