/**
 * Restarting `tandem serve` — the real CLI from the build, in child processes, on one SQLite
 * file or one PostgreSQL schema. `npm test` builds before vitest; run `npm run build` first when
 * calling vitest directly.
 *
 * A server killed with SIGKILL in the middle of a streaming task comes back with every earlier
 * task exactly as it was, the interrupted stream's task FAILED with a message saying why, and
 * every event a client had received still in the task (nothing acknowledged is lost). A task
 * waiting for input survives both kinds of restart and completes when the next message comes.
 * Over every binding.
 */

import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Task } from '../../src/index.js';
import type { A2ADriver } from '../support/drivers/a2a-driver.js';
import { connectDriver } from '../support/drivers/bindings.js';
import {
  chunkTexts,
  expectResumedAfter,
  lastSeqOf,
  range,
  seqsOf,
  stateOf,
  taskIdOf,
} from '../support/events.js';
import { describeMatrix } from '../support/matrix.js';
import { artifactTexts, historyOf, send, textOf } from '../support/messages.js';
import {
  CLI,
  SERVE_URL_LINE,
  requireBuild,
  serverProcesses,
  type ServerProcess,
} from '../support/processes.js';
import { testStoreSpec } from '../support/stores.js';
import { preciseNow, within } from '../support/sync.js';

const ORPHAN_TIMEOUT_MS = 2_000;

/** The message a restarted server gives a task that was running when the old one died. */
const FAILED_TEXT = {
  sqlite: /^The server restarted while this task was running; it did not finish\.$/,
  postgres: /^The server instance running this task stopped; it did not finish\.$/,
} as const;

interface Served {
  readonly process: ServerProcess;
  readonly echo: A2ADriver;
  readonly dice: A2ADriver;
}

describeMatrix(
  'tandem serve restarted',
  ({ binding, store }) => {
    const kind = store === 'postgres' ? 'postgres' : 'sqlite';
    const processes = serverProcesses();
    let storeArg = '';
    let removeStore: () => Promise<void> = () => Promise.resolve();

    beforeEach(async () => {
      requireBuild();
      const spec = await testStoreSpec(store);
      storeArg = spec.argument;
      removeStore = spec.cleanup;
    });

    afterEach(async () => {
      await processes.killAll();
      await removeStore();
    });

    async function serve(): Promise<Served> {
      const { process, url } = await processes.start(
        [
          CLI,
          'serve',
          ...['--store', storeArg, '--agent', 'echo', '--agent', 'dice', '--port', '0'],
          ...['--log-level', 'warn', '--orphan-timeout', `${ORPHAN_TIMEOUT_MS}ms`],
          ...['--shutdown-timeout', '300ms'],
          ...(binding === 'grpc' ? ['--grpc-port', '0'] : []),
        ],
        SERVE_URL_LINE,
      );
      return {
        process,
        echo: await connectDriver(binding, `${url}/agents/echo`),
        dice: await connectDriver(binding, `${url}/agents/dice`),
      };
    }

    it('kill -9 during a streaming task: earlier tasks unchanged, the streaming task FAILED with every delivered chunk kept', async () => {
      const first = await serve();
      const earlier: { agent: 'echo' | 'dice'; task: Task }[] = [];
      const keep = async (agent: 'echo' | 'dice', text: string): Promise<void> => {
        const task = await first[agent].sendTask(send(text));
        earlier.push({ agent, task: await first[agent].getTask({ id: task.id }) });
      };
      await keep('echo', 'echo hello');
      await keep('echo', 'stream 3 8');
      await keep('echo', 'nonsense');
      await keep('dice', 'roll 2d6');
      await keep('dice', 'roll banana');
      const canceled = await first.echo.sendStreamingMessage(send('slowstream 50 100'));
      const canceledId = taskIdOf((await canceled.take(2))[0]);
      await first.echo.cancelTask({ id: canceledId });
      expect(stateOf((await canceled.rest()).at(-1))).toBe('TASK_STATE_CANCELED');
      earlier.push({ agent: 'echo', task: await first.echo.getTask({ id: canceledId }) });
      expect(earlier.map(({ task }) => task.status.state)).toEqual([
        'TASK_STATE_COMPLETED',
        'TASK_STATE_COMPLETED',
        'TASK_STATE_REJECTED',
        'TASK_STATE_COMPLETED',
        'TASK_STATE_INPUT_REQUIRED',
        'TASK_STATE_CANCELED',
      ]);

      const stream = await first.echo.sendStreamingMessage(send('slowstream 50 100'));
      const delivered = await stream.take(5);
      const taskId = taskIdOf(delivered[0]);
      expect(delivered.map((event) => stateOf(event) ?? 'chunk')).toEqual([
        'TASK_STATE_SUBMITTED',
        'TASK_STATE_WORKING',
        'chunk',
        'chunk',
        'chunk',
      ]);
      const killedAt = preciseNow();
      await first.process.kill9();

      const second = await serve();
      for (const { agent, task } of earlier) {
        expect(await second[agent].getTask({ id: task.id }), `${agent} task ${task.id}`).toEqual(
          task,
        );
      }
      const listed = await second.echo.listTasks();
      expect(listed.tasks.map((task) => task.id).sort()).toEqual(
        [taskId, ...earlier.filter((e) => e.agent === 'echo').map((e) => e.task.id)].sort(),
      );
      if (kind === 'sqlite') {
        // A store only this process uses is recovered before the server listens.
        expect((await second.echo.getTask({ id: taskId })).status.state).toBe('TASK_STATE_FAILED');
      }

      // The client resumes where it was cut off: the events it missed, then the failure.
      const resumed = await within(
        (
          await second.echo.subscribeToTask({ id: taskId }, { lastEventId: lastSeqOf(delivered) })
        ).rest(),
        ORPHAN_TIMEOUT_MS + 2_000 - (preciseNow() - killedAt),
        'the FAILED event, within the orphan timeout + 2 s of the kill',
      );
      expectResumedAfter(lastSeqOf(delivered), resumed);
      const all = [...delivered, ...resumed];
      expect(seqsOf(all)).toEqual(range(1, all.length));
      expect(all.slice(5, -1).every((event) => event.response.artifactUpdate !== undefined)).toBe(
        true,
      );
      const failure = all.at(-1)?.response.statusUpdate?.status;
      expect(failure?.state).toBe('TASK_STATE_FAILED');
      expect(textOf(failure?.message)).toMatch(FAILED_TEXT[kind]);

      const stored = await second.echo.getTask({ id: taskId });
      expect(stored.status).toEqual(failure);
      expect(historyOf(stored)).toEqual([
        'user: slowstream 50 100',
        `agent: ${textOf(failure?.message)}`,
      ]);
      // Nothing acknowledged is lost: the delivered chunks (and any written after them) are kept.
      const chunks = chunkTexts(all);
      expect(chunks.length).toBeGreaterThanOrEqual(3);
      expect(chunks.length).toBeLessThan(50);
      expect(artifactTexts(stored)).toEqual([chunks]);
      const log = await (
        await second.echo.subscribeToTask({ id: taskId }, { lastEventId: 0 })
      ).rest();
      expect(log.map((event) => event.json)).toEqual(all.map((event) => event.json));
    });

    it('an INPUT_REQUIRED task survives kill -9 and SIGTERM restarts and completes with the next message', async () => {
      const first = await serve();
      const askFirst = await first.dice.sendTask(send('roll banana'));
      const askSecond = await first.dice.sendTask(send('roll banana'));
      expect(askFirst.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const before = {
        first: await first.dice.getTask({ id: askFirst.id }),
        second: await first.dice.getTask({ id: askSecond.id }),
      };
      await first.process.kill9();

      const second = await serve();
      expect(await second.dice.getTask({ id: askFirst.id })).toEqual(before.first);
      const done = await second.dice.sendTask(send('2d6', { taskId: askFirst.id }));
      expectRolled(done, '2d6');
      const completed = await second.dice.getTask({ id: askFirst.id });

      expect(await second.process.terminate()).toBe(0);
      const third = await serve();
      expect(await third.dice.getTask({ id: askSecond.id })).toEqual(before.second);
      expect(await third.dice.getTask({ id: askFirst.id })).toEqual(completed);
      expectRolled(await third.dice.sendTask(send('2d6', { taskId: askSecond.id })), '2d6');
    });

    it('SIGTERM during a streaming task: the process exits 0, the task is CANCELED, and a client resumes to that end after the restart', async () => {
      const first = await serve();
      const stream = await first.echo.sendStreamingMessage(send('slowstream 50 100'));
      const delivered = await stream.take(3);
      const taskId = taskIdOf(delivered[0]);
      const exit = first.process.terminate();
      // Whether the CANCELED event still reaches this stream is a race in the shutdown (see the
      // report of issue #4); what must hold is that the client can always learn the end.
      delivered.push(...(await stream.rest()));
      expect(await exit).toBe(0);

      const second = await serve();
      const resumed = await (
        await second.echo.subscribeToTask({ id: taskId }, { lastEventId: lastSeqOf(delivered) })
      ).rest();
      expectResumedAfter(lastSeqOf(delivered), resumed);
      const all = [...delivered, ...resumed];
      expect(seqsOf(all)).toEqual(range(1, all.length));
      expect(stateOf(all.at(-1))).toBe('TASK_STATE_CANCELED');
      const stored = await second.echo.getTask({ id: taskId });
      expect(stored.status).toEqual(all.at(-1)?.response.statusUpdate?.status);
      expect(artifactTexts(stored)).toEqual([chunkTexts(all)]);
    });
  },
  { stores: ['sqlite', 'postgres'] },
);

/** The dice agent rolled `notation` and completed, after asking once. */
function expectRolled(task: Task, notation: string): void {
  expect(task.status.state).toBe('TASK_STATE_COMPLETED');
  expect(historyOf(task)).toEqual([
    'user: roll banana',
    expect.stringMatching(/^agent: .*What should I roll\?/) as string,
    `user: ${notation}`,
  ]);
  const roll = task.artifacts?.[0];
  expect(roll?.name).toBe('roll');
  const data = roll?.parts[1]?.data as { notation: string; sum: number } | undefined;
  expect(data?.notation).toBe(notation);
  expect(data?.sum).toBeGreaterThanOrEqual(2);
  expect(data?.sum).toBeLessThanOrEqual(12);
}
