/**
 * Concurrent clients over real HTTP: many streams writing to different tasks at once each get
 * their own task's events, stored exactly as delivered; many messages racing to resume the same
 * interrupted task start exactly one execution, and the history holds that one message once.
 * Over every binding, on every store.
 */

import { setImmediate as nextTurn } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { UnsupportedOperationError, textPart, type Message } from '../../src/index.js';
import { defineAgent } from '../../src/server.js';
import type { StreamEvent } from '../support/drivers/a2a-driver.js';
import {
  chunkTexts,
  expectResumedAfter,
  range,
  seqsOf,
  stateOf,
  taskIdOf,
} from '../support/events.js';
import { describeMatrix } from '../support/matrix.js';
import { artifactTexts, historyOf, userText } from '../support/messages.js';
import { inProcessServers } from '../support/per-test-servers.js';
import { Counter, deferred, within } from '../support/sync.js';

const STREAMS = 50;
const CHUNKS = 10;
const RACERS = 10;

/** Streams `CHUNKS` chunks named after the message text, yielding the event loop between them. */
const producer = defineAgent({
  card: {
    name: 'Producer',
    description: 'Streams chunks named after the message',
    skills: [{ id: 'produce', name: 'Produce', description: 'Chunks', tags: ['test'] }],
  },
  async execute(ctx) {
    const tag = ctx.text;
    await ctx.working(`on it ${tag}`);
    let artifactId = '';
    for (let i = 0; i < CHUNKS; i++) {
      await nextTurn();
      const last = i === CHUNKS - 1;
      if (i === 0) artifactId = await ctx.artifact(textPart(`${tag}:0`), { lastChunk: last });
      else await ctx.append(artifactId, textPart(`${tag}:${i}`), { lastChunk: last });
    }
    await ctx.complete(`done ${tag}`);
  },
});

/** The history a stream told its client about: the snapshot's, then each status message. */
function deliveredHistory(events: readonly StreamEvent[]): Message[] {
  return events.flatMap((event) => {
    const r = event.response;
    if (r.task !== undefined) return r.task.history ?? [];
    const message = r.statusUpdate?.status.message;
    return message === undefined ? [] : [message];
  });
}

describeMatrix(
  'Concurrent clients',
  ({ binding, store: storeName }) => {
    const serve = inProcessServers(binding);

    it(`${STREAMS} concurrent streams to different tasks: each task stores exactly what its stream delivered`, async () => {
      const { agent } = await serve(storeName, { '': producer });
      const tags = range(0, STREAMS).map((i) => `client-${i}`);
      const streams = await Promise.all(
        tags.map((tag) => agent.sendStreamingMessage({ message: userText(tag) })),
      );
      const delivered = await Promise.all(streams.map((stream) => stream.rest()));

      const count = CHUNKS + 3;
      for (const [i, events] of delivered.entries()) {
        const tag = tags[i] as string;
        const taskId = taskIdOf(events[0]);
        expect(seqsOf(events), tag).toEqual(range(1, count));
        expect(events.map(taskIdOf), tag).toEqual(Array<string>(count).fill(taskId));
        expect(chunkTexts(events), tag).toEqual(range(0, CHUNKS).map((c) => `${tag}:${c}`));
        expect(stateOf(events.at(-1)), tag).toBe('TASK_STATE_COMPLETED');

        const stored = await agent.getTask({ id: taskId });
        expect(artifactTexts(stored), tag).toEqual([chunkTexts(events)]);
        expect(stored.history, tag).toEqual(deliveredHistory(events));
        expect(historyOf(stored), tag).toEqual([
          `user: ${tag}`,
          `agent: on it ${tag}`,
          `agent: done ${tag}`,
        ]);
        expect(stored.status, tag).toEqual(events.at(-1)?.response.statusUpdate?.status);
        const log = await (await agent.subscribeToTask({ id: taskId }, { lastEventId: 0 })).rest();
        expectResumedAfter(0, log);
        expect(
          log.map((e) => e.json),
          tag,
        ).toEqual(events.map((e) => e.json));
      }
      const listed = await agent.listTasks({ pageSize: 100 });
      expect(listed.totalSize).toBe(STREAMS);
      expect(new Set(listed.tasks.map((task) => task.id))).toEqual(
        new Set(delivered.map((events) => taskIdOf(events[0]))),
      );
    });

    it(`${RACERS} concurrent messages to the same INPUT_REQUIRED task: one resumes it, once; the others get UnsupportedOperation`, async () => {
      const executions: string[] = [];
      const release = deferred();
      const { agent } = await serve(storeName, {
        '': defineAgent({
          card: {
            name: 'Asker',
            description: 'Asks, then answers the first reply',
            skills: [{ id: 'ask', name: 'Ask', description: 'Asks', tags: ['test'] }],
          },
          async execute(ctx) {
            if (ctx.task === undefined) return ctx.inputRequired('which one?');
            executions.push(ctx.text);
            await release.promise;
            await ctx.artifact(textPart(`got ${ctx.text}`));
            await ctx.complete();
          },
        }),
      });
      const task = await agent.sendTask({ message: userText('first') });
      expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');

      const refused = new Counter();
      const replies = range(0, RACERS).map((i) =>
        agent
          .call('SendMessage', { message: userText(`answer-${i}`, { taskId: task.id }) })
          .then((reply) => {
            if (reply.error !== undefined) refused.increment();
            return reply;
          }),
      );
      // The accepted execution waits for the test: every other message meets a running task.
      await within(refused.reached(RACERS - 1), 10_000, `${RACERS - 1} refusals`);
      release.resolve();
      const settled = await Promise.all(replies);

      const accepted = settled.filter((reply) => reply.error === undefined);
      expect(accepted).toHaveLength(1);
      expect(
        settled.filter((reply) => reply.error instanceof UnsupportedOperationError),
      ).toHaveLength(RACERS - 1);
      expect(executions).toHaveLength(1);
      const winner = executions[0] as string;
      expect(accepted[0]?.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');

      const stored = await agent.getTask({ id: task.id });
      expect(stored.status.state).toBe('TASK_STATE_COMPLETED');
      expect(historyOf(stored)).toEqual(['user: first', 'agent: which one?', `user: ${winner}`]);
      expect(artifactTexts(stored)).toEqual([[`got ${winner}`]]);
      // A replay, like a live stream, ends at an interrupted state: the log is read in two parts.
      const replay = (lastEventId: number) =>
        agent.subscribeToTask({ id: task.id }, { lastEventId }).then((stream) => stream.rest());
      const beforeResume = await replay(0);
      expect(seqsOf(beforeResume)).toEqual([1, 2]);
      const afterResume = await replay(2);
      expectResumedAfter(2, afterResume);
      const log = [...beforeResume, ...afterResume];
      expect(seqsOf(log)).toEqual([1, 2, 3, 4, 5]);
      expect(log.map((event) => stateOf(event) ?? 'artifact')).toEqual([
        'TASK_STATE_SUBMITTED',
        'TASK_STATE_INPUT_REQUIRED',
        'TASK_STATE_WORKING',
        'artifact',
        'TASK_STATE_COMPLETED',
      ]);
    });
  },
  // Resuming after an event (and replaying a task's log) needs event ids, which gRPC streams do not carry.
  {},
);
