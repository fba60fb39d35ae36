import { describe, expect, it } from 'vitest';
import { defineAgent } from '../../src/server.js';
import { deferred } from '../support/sync.js';
import { A2A_HEADERS, call, handlerFor, messageParams, startServer } from './support.js';

/** An agent whose execution signals that it started, then waits to be released. */
function gatedAgent() {
  const started = deferred();
  const released = deferred();
  const agent = defineAgent({
    card: {
      name: 'Gated',
      description: 'Works until released',
      skills: [{ id: 'work', name: 'Work', description: 'Works until released', tags: ['test'] }],
    },
    async execute(ctx) {
      started.resolve();
      await released.promise;
      await ctx.artifact('released');
      return ctx.complete();
    },
  });
  return { agent, whenStarted: started.promise, release: () => released.resolve() };
}

describe('graceful shutdown', () => {
  it('lets a blocking SendMessage in flight finish, then stops accepting', async () => {
    const gated = gatedAgent();
    const { url, server } = await startServer({
      agents: [{ path: '', handler: handlerFor(gated.agent) }],
    });
    const inFlight = call(`${url}/a2a`, 'SendMessage', messageParams('work'));
    await gated.whenStarted;
    const stopping = server.shutdown({ deadlineMs: 5_000 });
    // Shutdown is under way (no longer listening) while the agent still works; let it run a turn.
    expect(server.server.listening).toBe(false);
    await new Promise(setImmediate);
    gated.release();
    const answer = await inFlight;
    expect(answer.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    await stopping;
    expect(server.server.listening).toBe(false);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it('cuts what is still running at the deadline', async () => {
    const { url, server } = await startServer();
    const response = await fetch(`${url}/a2a`, {
      method: 'POST',
      headers: A2A_HEADERS,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendStreamingMessage',
        params: messageParams('slow 100 100'),
      }),
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    // The stream is open once its first event (the task) has arrived; the agent runs for 10 s.
    expect((await reader.read()).done).toBe(false);
    const started = Date.now();
    await server.shutdown({ deadlineMs: 300 });
    expect(Date.now() - started).toBeLessThan(3_000);
    // The stream either ended with the task's final event or was cut; either way it settles.
    const drained = (async () => {
      while (!(await reader.read()).done);
    })();
    await drained.catch((error: unknown) => error);
  });

  it('is idempotent', async () => {
    const { server } = await startServer();
    const first = server.shutdown({ deadlineMs: 100 });
    expect(server.shutdown()).toBe(first);
    await first;
  });
});
