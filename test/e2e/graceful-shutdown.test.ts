/**
 * Graceful shutdown of an in-process server, end to end: work in flight finishes within the
 * deadline — a blocking SendMessage gets its answer, and the open streams of a task deliver every
 * event up to its final status even when their clients read slowly — over every binding, against
 * every store. (The same through a real `tandem serve` process and SIGTERM:
 * cli-serve-shutdown.test.ts.)
 */

import { expect, it } from 'vitest';
import { defineAgent } from '../../src/server.js';
import { testCard } from '../support/agents.js';
import { describeBehaviour } from '../support/behaviour-env.js';
import { describeEvent, range, seqsOf } from '../support/events.js';
import { artifactTexts, send } from '../support/messages.js';
import { deferred } from '../support/sync.js';

const CHUNKS = 100;
const CHUNK_BYTES = 64 * 1024;

describeBehaviour('Graceful shutdown', (env) => {
  it('lets a blocking SendMessage in flight finish with the complete task', async () => {
    const started = deferred();
    const release = deferred();
    const server = await env.serve(
      defineAgent({
        card: testCard('Finisher'),
        async execute(ctx) {
          await ctx.working();
          started.resolve();
          await release.promise;
          await ctx.artifact('complete answer');
        },
      }),
    );
    const blocking = server.agent.sendTask(send('go'));
    await started.promise;
    const stopping = server.node.shutdown({ deadlineMs: 10_000 });
    release.resolve();
    const task = await blocking;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(artifactTexts(task)).toEqual([['complete answer']]);
    await stopping;
    expect(server.node.server.listening).toBe(false);
  });

  it('lets open streams deliver every event of a task that ended, to clients that read slowly', async () => {
    const started = deferred();
    const release = deferred();
    const finished = deferred();
    const server = await env.serve(
      defineAgent({
        card: testCard('Producer'),
        async execute(ctx) {
          await ctx.working();
          started.resolve();
          await release.promise;
          const id = await ctx.artifact(`#0:${'x'.repeat(CHUNK_BYTES)}`, { lastChunk: false });
          for (let i = 1; i < CHUNKS; i++) {
            await ctx.append(id, `#${i}:${'x'.repeat(CHUNK_BYTES)}`, {
              lastChunk: i === CHUNKS - 1,
            });
          }
          await ctx.complete();
          finished.resolve();
        },
      }),
    );
    const sender = await server.agent.sendStreamingMessage(send('go'));
    const first = await sender.next();
    const taskId = first?.response.task?.id ?? '';
    await started.promise;
    const subscriber = await server.agent.subscribeToTask({ id: taskId });
    release.resolve();
    // Neither client reads while the task runs to its end; the server then shuts down with a
    // generous deadline, within which both clients read everything.
    await finished.promise;
    const stopping = server.node.shutdown({ deadlineMs: 10_000 });
    const [senderRest, subscriberRest] = await Promise.all([sender.rest(), subscriber.rest()]);
    await stopping;
    const expectedTail = [`${CHUNKS + 2} artifact`, `${CHUNKS + 3} status TASK_STATE_COMPLETED`];
    for (const events of [senderRest, subscriberRest]) {
      const described = events.map(describeEvent).map((d) => d.split(' #')[0]);
      expect(described.slice(-2)).toEqual(expectedTail);
    }
    expect(seqsOf(senderRest)).toEqual(range(2, CHUNKS + 2));
  });
});
