/**
 * Graceful shutdown of a real `tandem serve` process: SIGTERM during a blocking SendMessage to the
 * echo agent lets the call finish with its complete answer, then the process exits 0 — with the
 * server on each store.
 */

import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../src/index.js';
import { AgentEndpoint, send } from './support/json-rpc.js';
import { requireBuiltCli, startServe, type ServeProcess } from './support/cli.js';
import {
  POSTGRES_SKIP_REASON,
  POSTGRES_URL,
  STORE_NAMES,
  dropSchema,
  freshSchema,
  isStoreAvailable,
  tempDir,
  type StoreName,
} from './support/stores.js';
import { pollUntil } from './support/sync.js';

/** The `--store` value for a store, and how to clean up after it. */
async function storeArgument(
  name: StoreName,
): Promise<{ spec: string; cleanup: () => Promise<void> }> {
  switch (name) {
    case 'memory':
      return { spec: 'memory', cleanup: () => Promise.resolve() };
    case 'sqlite': {
      const dir = await tempDir();
      return { spec: `sqlite:${dir.path}/tandem.db`, cleanup: dir.remove };
    }
    case 'postgres': {
      const url = POSTGRES_URL ?? '';
      const schema = freshSchema();
      const spec = `${url}${url.includes('?') ? '&' : '?'}schema=${schema}`;
      return { spec, cleanup: () => dropSchema(url, schema) };
    }
  }
}

describe.each(STORE_NAMES)('tandem serve graceful shutdown [%s store]', (name) => {
  if (!isStoreAvailable(name)) {
    it.skip(POSTGRES_SKIP_REASON, () => undefined);
    return;
  }

  let serve: ServeProcess | undefined;
  let cleanup: (() => Promise<void>) | undefined;

  beforeAll(requireBuiltCli);

  afterEach(async () => {
    // Only after a failure is the process still running: stop it by its own id.
    if (serve !== undefined && serve.child.exitCode === null && serve.child.signalCode === null) {
      serve.child.kill('SIGKILL');
      await serve.exited;
    }
    serve = undefined;
    await cleanup?.();
    cleanup = undefined;
  });

  it('lets a blocking SendMessage finish on SIGTERM, then exits 0', async () => {
    const store = await storeArgument(name);
    cleanup = store.cleanup;
    serve = await startServe([
      '--agent',
      'echo',
      '--port',
      '0',
      '--store',
      store.spec,
      '--log-level',
      'warn',
    ]);
    const agent = new AgentEndpoint(`${serve.url}/a2a`);
    const contextId = `ctx-${crypto.randomUUID()}`;
    const blocking = agent.call<{ task: Task }>(
      'SendMessage',
      send('slowstream 5 200', { contextId }),
    );
    // The task lives in another process: poll for it, then follow it with a subscription.
    const taskId = await pollUntil(async () => {
      const [task] = (await agent.listTasks({ contextId })).tasks;
      return task?.id;
    }, 'the echo task to appear');
    const watcher = await agent.subscribe(taskId);
    let frame = await watcher.next();
    while (frame !== undefined && frame.result?.artifactUpdate === undefined) {
      frame = await watcher.next();
    }
    // Mid-stream: a chunk has been produced and the last one has not.
    expect(frame?.result?.artifactUpdate?.lastChunk).not.toBe(true);
    // What open streams get during a shutdown is the business of graceful-shutdown.test.ts.
    watcher.close();

    serve.child.kill('SIGTERM');

    const answer = await blocking;
    expect(answer.error).toBeUndefined();
    const task = answer.result?.task;
    expect(task?.id).toBe(taskId);
    expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task?.artifacts).toHaveLength(1);
    expect(task?.artifacts?.[0]?.parts).toEqual(
      Array.from({ length: 5 }, () => ({ text: 'x'.repeat(64) })),
    );
    expect(await serve.exited).toEqual({ code: 0, signal: null });
  });
});
