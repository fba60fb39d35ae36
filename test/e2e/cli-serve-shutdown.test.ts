/**
 * Graceful shutdown of a real `tandem serve` process: SIGTERM during a blocking SendMessage to the
 * echo agent lets the call finish with its complete answer, then the process exits 0 — with the
 * server on each store, over every binding.
 */

import { beforeAll, expect, it } from 'vitest';
import { connectDriver } from '../support/drivers/bindings.js';
import { describeMatrix } from '../support/matrix.js';
import { send } from '../support/messages.js';
import { CLI, SERVE_URL_LINE, requireBuild, serverProcesses } from '../support/processes.js';
import { testStoreSpec } from '../support/stores.js';
import { pollUntil } from '../support/sync.js';

describeMatrix('tandem serve graceful shutdown', ({ binding, store }) => {
  const processes = serverProcesses();

  beforeAll(requireBuild);

  it('lets a blocking SendMessage finish on SIGTERM, then exits 0', async () => {
    const { argument, cleanup } = await testStoreSpec(store);
    try {
      const { process: serve, url } = await processes.start(
        [
          CLI,
          'serve',
          '--agent',
          'echo',
          '--port',
          '0',
          '--store',
          argument,
          '--log-level',
          'warn',
          ...(binding === 'grpc' ? ['--grpc-port', '0'] : []),
        ],
        SERVE_URL_LINE,
      );
      const agent = await connectDriver(binding, url);
      const contextId = `ctx-${crypto.randomUUID()}`;
      const blocking = agent.call('SendMessage', send('slowstream 5 200', { contextId }));
      // The task lives in another process: poll for it, then follow it with a subscription.
      const taskId = await pollUntil(async () => {
        const [task] = (await agent.listTasks({ contextId })).tasks;
        return task?.id;
      }, 'the echo task to appear');
      const watcher = await agent.subscribeToTask({ id: taskId });
      let event = await watcher.next();
      while (event !== undefined && event.response.artifactUpdate === undefined) {
        event = await watcher.next();
      }
      // Mid-stream: a chunk has been produced and the last one has not.
      expect(event?.response.artifactUpdate?.lastChunk).not.toBe(true);
      // What open streams get during a shutdown is the business of graceful-shutdown.test.ts.
      watcher.close();

      const exit = serve.terminate();

      const answer = await blocking;
      expect(answer.error).toBeUndefined();
      const task = answer.result?.task;
      expect(task?.id).toBe(taskId);
      expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
      expect(task?.artifacts).toHaveLength(1);
      expect(task?.artifacts?.[0]?.parts).toEqual(
        Array.from({ length: 5 }, () => ({ text: 'x'.repeat(64) })),
      );
      expect(await exit).toBe(0);
      expect(await serve.exited).toEqual({ code: 0, signal: null });
    } finally {
      await processes.killAll();
      await cleanup();
    }
  });
});
