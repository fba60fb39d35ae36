/**
 * Changes sent ahead of their commit, on the stores that apply writes in call order (memory,
 * SQLite): an agent's artifact chunks do not wait for each other's commit, yet nothing reaches a
 * reader before it is stored, and a write that fails on the way is not skipped over — the chunks
 * after it are not stored, the agent hears of it, and the task ends FAILED. Over every binding.
 */

import { expect, it } from 'vitest';
import { defineAgent } from '../../src/server.js';
import { openTaskStore, type TaskStore } from '../../src/stores.js';
import { testCard } from '../support/agents.js';
import type { A2ADriver } from '../support/drivers/a2a-driver.js';
import { range, seqsOf } from '../support/events.js';
import { describeMatrix } from '../support/matrix.js';
import { artifactTexts, send, textOf } from '../support/messages.js';
import { inProcessServersOn } from '../support/per-test-servers.js';
import { testStoreSpec } from '../support/stores.js';
import { deferred } from '../support/sync.js';

/** The error a failing disk gives, as a store would pass it on. */
class DiskError extends Error {}

/**
 * A real store whose `failAt`-th append (1-based) rejects, as a full or failing disk makes a
 * store do — the one fault a test cannot cause in a real store on demand.
 */
function failingOnAppend(store: TaskStore, failAt: number): TaskStore {
  let appends = 0;
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (property === 'append') {
        return (...args: Parameters<TaskStore['append']>) => {
          appends++;
          if (appends === failAt) return Promise.reject(new DiskError('disk I/O error'));
          return target.append(...args);
        };
      }
      return typeof value === 'function'
        ? (value as (...args: unknown[]) => unknown).bind(target)
        : value;
    },
  });
}

describeMatrix(
  'Writes sent ahead',
  ({ binding, store: kind }) => {
    const serveOn = inProcessServersOn(binding);

    /** Serves `agent` over a fresh store of `kind`, the store wrapped by `wrap` if given. */
    async function serve(
      agent: ReturnType<typeof defineAgent>,
      wrap: (store: TaskStore) => TaskStore = (store) => store,
    ): Promise<A2ADriver> {
      const { spec, cleanup } = await testStoreSpec(kind);
      const store = await openTaskStore(spec);
      return (await serveOn(wrap(store), { '': agent }, cleanup)).agent;
    }

    it('lets a fast producer run ahead of the commits, storing and streaming every chunk in order', async () => {
      const chunks = 300;
      const agent = defineAgent({
        card: testCard('Fast producer'),
        async execute(ctx) {
          const id = await ctx.artifact('c0', { lastChunk: false });
          for (let i = 1; i < chunks; i++) await ctx.append(id, `c${i}`);
          await ctx.complete('done');
        },
      });
      const endpoint = await serve(agent);
      const stream = await endpoint.sendStreamingMessage(send('go'));
      const events = await stream.rest();
      // The Task, every chunk, the completion: one event each, numbered without a gap.
      expect(seqsOf(events)).toEqual(range(1, chunks + 2));
      const taskId = events[0]?.response.task?.id as string;
      const task = await endpoint.getTask({ id: taskId });
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(artifactTexts(task)).toEqual([Array.from({ length: chunks }, (_, i) => `c${i}`)]);
    });

    // The 3rd append fails while the agent is within the write-ahead window; the 40th, when it is
    // beyond (waiting for commits).
    it.each([3, 40])(
      'stores nothing after a chunk whose write failed (append %i), tells the agent, and fails the task',
      async (failAt) => {
        const heard = deferred<unknown>();
        const agent = defineAgent({
          card: testCard('Producer on a failing disk'),
          async execute(ctx) {
            try {
              const id = await ctx.artifact('c0', { lastChunk: false });
              for (let i = 1; i < 100; i++) await ctx.append(id, `c${i}`);
              await ctx.complete('done');
            } catch (error) {
              heard.resolve(error);
              throw error;
            }
          },
        });
        // The task's creation carries c0, append n carries cn.
        const endpoint = await serve(agent, (store) => failingOnAppend(store, failAt));
        const task = await endpoint.sendTask(send('go'));
        expect(await heard.promise).toBeInstanceOf(DiskError);
        expect(task.status.state).toBe('TASK_STATE_FAILED');
        expect(textOf(task.status.message)).toBe('The agent failed while working on this task.');
        const stored = await endpoint.getTask({ id: task.id });
        expect(stored.status.state).toBe('TASK_STATE_FAILED');
        expect(artifactTexts(stored)).toEqual([Array.from({ length: failAt }, (_, i) => `c${i}`)]);
      },
    );

    it('resolves a status change only once it is stored, with the chunks sent before it', async () => {
      const reached = deferred<string>();
      const release = deferred();
      const agent = defineAgent({
        card: testCard('Status reporter'),
        async execute(ctx) {
          const id = await ctx.artifact('c0', { lastChunk: false });
          await ctx.append(id, 'c1');
          await ctx.working('halfway');
          reached.resolve(ctx.taskId);
          await release.promise;
          await ctx.complete('done');
        },
      });
      const endpoint = await serve(agent);
      const sent = endpoint.sendTask(send('go'));
      const stored = await endpoint.getTask({ id: await reached.promise });
      release.resolve();
      expect(stored.status.state).toBe('TASK_STATE_WORKING');
      expect(textOf(stored.status.message)).toBe('halfway');
      expect(artifactTexts(stored)).toEqual([['c0', 'c1']]);
      expect((await sent).status.state).toBe('TASK_STATE_COMPLETED');
    });
  },
  { stores: ['memory', 'sqlite'] },
);
