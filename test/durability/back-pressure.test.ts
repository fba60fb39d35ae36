/**
 * Back-pressure on PostgreSQL: while the event log's table is locked (a stand-in for a database
 * that has stopped keeping up), an agent streaming chunks gets ahead of what is stored by at most
 * the runtime's write-ahead bound and then waits, the client's stream receives nothing that is
 * not stored, and once the lock is gone everything is written and delivered — nothing fails that
 * would have succeeded. Over every binding.
 */

import { Pool, type PoolClient } from 'pg';
import { expect, it } from 'vitest';
import { textPart } from '../../src/index.js';
import { WRITE_AHEAD_LIMIT } from '../../src/runtime/write-ahead.js';
import { defineAgent } from '../../src/server.js';
import { openTaskStore } from '../../src/stores.js';
import { chunkTexts, expectResumedAfter, stateOf, taskIdOf } from '../support/events.js';
import { describeMatrix } from '../support/matrix.js';
import { send } from '../support/messages.js';
import { inProcessServersOn } from '../support/per-test-servers.js';
import { POSTGRES_URL, freshSchema } from '../support/stores.js';
import { sleep, within } from '../support/sync.js';

const CHUNKS = 200;

describeMatrix(
  'Back-pressure when PostgreSQL stops keeping up',
  ({ binding }) => {
    const serve = inProcessServersOn(binding);

    it('holds the agent within the write-ahead bound while the log is locked, then delivers everything', async () => {
      let produced = 0;
      const agent = defineAgent({
        card: {
          name: 'Streamer',
          description: 'Streams chunks as fast as the runtime takes them',
          version: '1.0.0',
          capabilities: { streaming: true },
          skills: [{ id: 's', name: 'Stream', description: 'Streams', tags: ['test'] }],
        },
        async execute(ctx) {
          await ctx.working();
          const artifactId = 'chunks';
          for (let i = 0; i < CHUNKS; i++) {
            await ctx.artifact(textPart(`chunk-${i}`), { artifactId, append: i > 0 });
            produced++;
            // One chunk per turn, as a model streaming tokens would.
            await new Promise((resolve) => setImmediate(resolve));
          }
          await ctx.complete();
        },
      });
      const schema = freshSchema();
      const store = await openTaskStore({
        kind: 'postgres',
        connectionString: POSTGRES_URL ?? '',
        schema: schema.schema,
      });
      const { agent: client } = await serve(store, { '': agent }, schema.drop);
      const admin = new Pool({ connectionString: POSTGRES_URL, max: 2 });
      let locker: PoolClient | undefined;
      try {
        locker = await admin.connect();
        const stream = await client.sendStreamingMessage(send('go'));
        const head = await within(stream.take(3), 10_000, 'the first chunk');
        const taskId = taskIdOf(head[0]);
        await locker.query('BEGIN');
        await locker.query(`LOCK TABLE "${schema.schema}".task_events IN SHARE MODE`);
        const storedSeq = async (): Promise<number> =>
          Number(
            (
              await admin.query<{ n: string }>(
                `SELECT count(*) AS n FROM "${schema.schema}".task_events e
                   JOIN "${schema.schema}".tasks t ON t.key = e.task_key WHERE t.id = $1`,
                [taskId],
              )
            ).rows[0]?.n,
          );
        // Time itself is under test: the agent must stop for as long as the database does.
        await sleep(400);
        const atLock = await storedSeq();
        const ahead = produced;
        await sleep(400);
        expect(produced, 'the agent waited for the database').toBe(ahead);
        expect(await storedSeq()).toBe(atLock);
        // Chunks stored are events 3 on; the agent is at most the write-ahead bound past them.
        expect(produced).toBeLessThanOrEqual(atLock - 2 + WRITE_AHEAD_LIMIT + 1);
        expect(produced).toBeLessThan(CHUNKS);
        await locker.query('ROLLBACK');
        const rest = await within(stream.rest(), 20_000, 'the stream to end after the lock');
        const all = [...head, ...rest];
        expectResumedAfter(0, all);
        expect(stateOf(all.at(-1))).toBe('TASK_STATE_COMPLETED');
        expect(chunkTexts(all)).toEqual(Array.from({ length: CHUNKS }, (_, i) => `chunk-${i}`));
        expect(produced).toBe(CHUNKS);
      } finally {
        if (locker !== undefined) {
          await locker.query('ROLLBACK').catch(() => undefined);
          locker.release();
        }
        await admin.end();
      }
    });
  },
  { stores: ['postgres'] },
);
