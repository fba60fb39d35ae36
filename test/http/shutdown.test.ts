import { describe, expect, it } from 'vitest';
import { call, messageParams, sleep, startServer } from './support.js';

describe('graceful shutdown', () => {
  it('lets a blocking SendMessage in flight finish, then stops accepting', async () => {
    const { url, server } = await startServer();
    const inFlight = call(`${url}/a2a`, 'SendMessage', messageParams('sleep 300'));
    await sleep(50);
    const stopping = server.shutdown({ deadlineMs: 5_000 });
    const answer = await inFlight;
    expect(answer.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    await stopping;
    expect(server.server.listening).toBe(false);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it('cuts what is still running at the deadline', async () => {
    const { url, server } = await startServer();
    const started = Date.now();
    const inFlight = fetch(`${url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendStreamingMessage',
        params: messageParams('slow 100 100'),
      }),
    }).then((response) => response.text());
    await sleep(150);
    await server.shutdown({ deadlineMs: 300 });
    expect(Date.now() - started).toBeLessThan(3_000);
    // The stream either ended with the task's final event or was cut; either way it settles.
    await inFlight.catch((error: unknown) => error);
  });

  it('is idempotent', async () => {
    const { server } = await startServer();
    const first = server.shutdown({ deadlineMs: 100 });
    expect(server.shutdown()).toBe(first);
    await first;
  });
});
