/**
 * Two replicas whose store goes through PgBouncer in transaction-pooling mode (a server
 * connection per transaction, fewer of them than clients), each listening on a direct
 * connection given by `?listen_url=`: what one replica writes, the other reads, streams live and
 * cancels. `.ci/run` starts PgBouncer (`.ci/start-pgbouncer`) and exports its URL as
 * `TANDEM_TEST_PGBOUNCER_URL`; without it these tests are skipped, saying so.
 */

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { A2ADriver } from '../support/drivers/a2a-driver.js';
import { connectDriver } from '../support/drivers/bindings.js';
import { chunkTexts, expectResumedAfter, stateOf, taskIdOf } from '../support/events.js';
import { artifactTexts, send } from '../support/messages.js';
import {
  REPLICA_SERVER,
  REPLICA_URL_LINE,
  requireBuild,
  serverProcesses,
  type ServerProcess,
} from '../support/processes.js';
import { POSTGRES_URL, freshSchema, type TestSchema } from '../support/stores.js';
import { within } from '../support/sync.js';
import { boundedDriver } from './fixtures/bounded-driver.js';

const PGBOUNCER_URL = process.env.TANDEM_TEST_PGBOUNCER_URL;
const STEP_MS = 10_000;
const skipReason =
  POSTGRES_URL === undefined
    ? 'set TANDEM_TEST_POSTGRES_URL'
    : PGBOUNCER_URL === undefined || PGBOUNCER_URL === ''
      ? 'set TANDEM_TEST_PGBOUNCER_URL (export TANDEM_TEST_PGBOUNCER_URL=$(.ci/start-pgbouncer))'
      : undefined;

interface Replica {
  readonly process: ServerProcess;
  readonly agent: A2ADriver;
}

describe('Two replicas through PgBouncer in transaction mode, listening on a direct connection', () => {
  if (skipReason !== undefined) {
    it.skip(`PgBouncer tests skipped: ${skipReason}`, () => undefined);
    return;
  }
  const processes = serverProcesses();
  let schema: TestSchema;
  let a: Replica;
  let b: Replica;

  /** The store URL: the pooler's, with the schema and the direct URL for LISTEN. */
  function storeUrl(): string {
    const url = new URL(PGBOUNCER_URL ?? '');
    url.searchParams.set('schema', schema.schema);
    url.searchParams.set('listen_url', POSTGRES_URL ?? '');
    url.searchParams.set('pool', '3');
    return url.toString();
  }

  async function replica(name: string): Promise<Replica> {
    const { process, url } = await processes.start(
      [REPLICA_SERVER, '--store', storeUrl(), '--name', name],
      REPLICA_URL_LINE,
    );
    const driver = await within(connectDriver('jsonrpc', url), STEP_MS, `${name}: connect`);
    return { process, agent: boundedDriver(driver, name, STEP_MS) };
  }

  beforeEach(async () => {
    requireBuild();
    schema = freshSchema();
    a = await replica('A');
    b = await replica('B');
  });

  afterEach(async () => {
    await processes.killAll();
    await schema.drop();
  });

  it('streams on B, live and in order, a task created on A; B reads it whole', async () => {
    const onA = await a.agent.sendStreamingMessage(send('tick 5 30'));
    const head = await onA.take(2);
    const taskId = taskIdOf(head[0]);
    const onB = await b.agent.subscribeToTask({ id: taskId }, { lastEventId: head.length });
    const [restA, fromB] = await Promise.all([onA.rest(), onB.rest()]);
    const all = [...head, ...restA];
    expectResumedAfter(0, all);
    expect(stateOf(all.at(-1))).toBe('TASK_STATE_COMPLETED');
    expectResumedAfter(head.length, fromB);
    expect(fromB.map((event) => event.json)).toEqual(
      all.slice(head.length).map((event) => event.json),
    );
    expect(artifactTexts(await b.agent.getTask({ id: taskId }))).toEqual([chunkTexts(all)]);
    const echoed = await b.agent.sendTask(send('echo hi'));
    expect(await a.agent.getTask({ id: echoed.id })).toEqual(echoed);
  });

  it('cancels through B a task A holds: A hears it on its direct connection and aborts', async () => {
    const onA = await a.agent.sendStreamingMessage(send('hold'));
    const taskId = taskIdOf((await onA.take(2))[0]);
    expect((await b.agent.cancelTask({ id: taskId })).status.state).toBe('TASK_STATE_CANCELED');
    expect(stateOf((await onA.rest()).at(-1))).toBe('TASK_STATE_CANCELED');
    await a.process.line(new RegExp(`^aborted ${taskId}$`), STEP_MS);
  });
});
