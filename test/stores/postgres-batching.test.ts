/**
 * The PostgreSQL store's group commit (`postgres-write-queue.ts`): writes called without waiting
 * share a statement and a commit, across tasks and within one; an append built on a write that
 * another replica's write refused is refused too, never applied on top of it; a backend killed
 * in the middle of a batch leaves every write of it either committed and acknowledged or
 * rejected and absent, never half a task; renewing leases rewrites no task row. Each suite works
 * in a schema of its own.
 */

import { randomBytes } from 'node:crypto';
import { Pool, type PoolClient } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../../src/protocol/generated/types.js';
import { PostgresTaskStore } from '../../src/stores/postgres/postgres-task-store.js';
import type { AppendRequest, AppendResult, TaskScope } from '../../src/stores/task-store.js';
import { createRequest, logEntry, message, newTask } from './contract/builders.js';
import { pollUntil } from '../support/sync.js';

const url = process.env.TANDEM_TEST_POSTGRES_URL;
const scope: TaskScope = { agent: 'dice', tenant: 'acme', owner: 'alice' };

function note(taskId: string, seq: number): { request: AppendRequest; message: Message } {
  const m = message(`${taskId}-n${seq}`, `note ${seq}`);
  return {
    message: m,
    request: {
      taskId,
      expectedSeq: seq,
      events: [logEntry(seq + 1, { message: m })],
      mutations: [{ kind: 'history', message: m }],
    },
  };
}

describe.skipIf(url === undefined || url === '')('PostgresTaskStore group commit', () => {
  const connectionString = url ?? '';
  const schema = `tandem_test_${randomBytes(6).toString('hex')}`;
  let admin: Pool;
  let a: PostgresTaskStore;
  let b: PostgresTaskStore;

  beforeAll(async () => {
    admin = new Pool({ connectionString, max: 3 });
    a = await PostgresTaskStore.open({ connectionString, schema });
    b = await PostgresTaskStore.open({ connectionString, schema });
  });

  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });

  /** Transactions committed by this schema's writers, from the rows' own transaction ids. */
  async function transactionsOf(taskIds: string[]): Promise<number> {
    const result = await admin.query<{ n: string }>(
      `SELECT count(DISTINCT xmin::text) AS n FROM ${schema}.tasks WHERE id = ANY($1::text[])`,
      [taskIds],
    );
    return Number(result.rows[0]?.n);
  }

  it('commits the writes of 20 tasks, each created and appended to without waiting, together', async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `together-${i}`);
    const writes = ids.flatMap((id) => [
      a.createTask(createRequest(newTask(id), { scope })),
      ...[1, 2, 3].map((seq) => a.append(note(id, seq).request)),
    ]);
    const results = await Promise.all(writes);
    expect(results.filter((result) => result !== undefined)).toEqual(
      ids.flatMap(() => [2, 3, 4].map((seq) => ({ ok: true, seq }))),
    );
    // Every task row was written once, by one of very few transactions.
    expect(await transactionsOf(ids)).toBeLessThanOrEqual(2);
    for (const id of ids) {
      const stored = await b.getTask(scope, id);
      expect(stored?.seq).toBe(4);
      expect(stored?.task.history?.map((m) => m.messageId)).toEqual([
        `${id}-m0`,
        `${id}-n1`,
        `${id}-n2`,
        `${id}-n3`,
      ]);
    }
  });

  it("refuses an append built on one that another replica's write refused, though the seq matches", async () => {
    await a.createTask(createRequest(newTask('raced'), { scope }));
    // B writes seq 2 first; A then sends seq 2 and, built on it, seq 3 without waiting.
    expect(await b.append(note('raced', 1).request)).toEqual({ ok: true, seq: 2 });
    const first = a.append(note('raced', 1).request);
    const second = a.append(note('raced', 2).request);
    expect(await first).toEqual({ ok: false, currentSeq: 2 });
    // On its own seq 2 is where the task is; but it continues a refused write.
    expect(await second).toEqual({ ok: false, currentSeq: 2 });
    const stored = await a.getTask(scope, 'raced');
    expect(stored?.seq).toBe(2);
    expect(stored?.task.history).toHaveLength(2);
    // A fresh write at the seq the task is at goes through.
    expect(await a.append(note('raced', 2).request)).toEqual({ ok: true, seq: 3 });
  });

  it('leaves every write of a batch whose backend is killed committed and acknowledged, or rejected and absent', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `killed-${i}`);
    await Promise.all(ids.map((id) => a.createTask(createRequest(newTask(id), { scope }))));
    // A transaction holding one task row keeps the next batch in the middle of its statement.
    const blocker: PoolClient = await admin.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query(`SELECT 1 FROM ${schema}.tasks WHERE id = 'killed-0' FOR UPDATE`);
      const outcomes = ids.map((id) =>
        Promise.allSettled([1, 2, 3].map((seq) => a.append(note(id, seq).request))),
      );
      const pid = await pollUntil(async () => {
        const found = await admin.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock'
             AND query LIKE $1 AND pid <> pg_backend_pid()`,
          [`%"${schema}".tasks%`],
        );
        return found.rows[0]?.pid;
      }, 'a batch waiting for the held row');
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await blocker.query('ROLLBACK');
      const settled = await Promise.all(outcomes);
      let rejected = 0;
      for (const [i, id] of ids.entries()) {
        const results = settled[i] ?? [];
        const stored = await b.getTask(scope, id);
        const acknowledged = results.filter(
          (r): r is PromiseFulfilledResult<AppendResult> => r.status === 'fulfilled' && r.value.ok,
        ).length;
        rejected += results.filter((r) => r.status === 'rejected').length;
        // Exactly the acknowledged writes are stored, in the log and the projection alike.
        expect(stored?.seq, id).toBe(1 + acknowledged);
        expect(stored?.task.history, id).toHaveLength(1 + acknowledged);
        expect(
          (await b.readEvents(id, 0, 10))?.map((e) => e.seq),
          id,
        ).toEqual(Array.from({ length: 1 + acknowledged }, (_, k) => k + 1));
      }
      expect(rejected).toBeGreaterThan(0);
    } finally {
      blocker.release();
    }
    // The store goes on on its other connections.
    expect(await a.append(note('killed-0', 1).request)).toMatchObject({ ok: true });
  });

  it('renews the leases of a holder with one row, rewriting no task row', async () => {
    const ids = Array.from({ length: 30 }, (_, i) => `leased-${i}`);
    await Promise.all(
      ids.map((id) =>
        a.createTask(
          createRequest(newTask(id, { state: 'TASK_STATE_WORKING' }), {
            scope,
            leaseHolder: 'holder-a',
            leaseMs: 50,
          }),
        ),
      ),
    );
    const versions = async (): Promise<string[]> =>
      (
        await admin.query<{ v: string }>(
          `SELECT xmin::text AS v FROM ${schema}.tasks WHERE id = ANY($1::text[]) ORDER BY id`,
          [ids],
        )
      ).rows.map((row) => row.v);
    const before = await versions();
    for (let i = 0; i < 3; i++) await a.leases.renew('holder-a', 60_000);
    expect(await versions()).toEqual(before);
    const holders = await admin.query(`SELECT holder FROM ${schema}.lease_holders`);
    expect(holders.rows).toEqual([{ holder: 'holder-a' }]);
    // Past the tasks' own 50 ms, the heartbeat keeps them leased: none is an orphan.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const orphans = await b.leases.findOrphans(100);
    expect(orphans.filter((o) => o.taskId.startsWith('leased-'))).toEqual([]);
    expect(await b.leases.acquire('leased-0', 'holder-b', 1_000)).toBe(false);
  });
});
