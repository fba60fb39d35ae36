/**
 * Push notifications from the command line, as child processes: `tandem serve` pushing to
 * `tandem listen`, configured with `tandem push create|list|get|delete|status` on every binding
 * and with `send`/`stream --push-url`; `tandem listen` says on stderr which deliveries it refused.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, SERVE_URL_LINE, ServerProcess } from '../support/processes.js';
import { CliProcess, ensureBuilt, runCli } from './cli-harness.js';

const PUSH_TOKEN = 'push-token-0123456789abcdef';

let agent: ServerProcess;
let base: string;
let listen: CliProcess;
let webhook: string;

beforeAll(async () => {
  await ensureBuilt();
  agent = new ServerProcess([
    CLI,
    'serve',
    '--port',
    '0',
    '--grpc-port',
    '0',
    '--store',
    'memory',
    '--agent',
    'echo',
    '--push-allow',
    '127.0.0.1',
    '--log-level',
    'silent',
  ]);
  [, base = ''] = await agent.line(SERVE_URL_LINE, 30_000);
  listen = new CliProcess(['listen', '--port', '0'], { TANDEM_LISTEN_TOKEN: PUSH_TOKEN });
  await listen.waitFor(/^Listening for push notifications at (\S+)$/m, { timeoutMs: 30_000 });
  webhook = /^Listening for push notifications at (\S+)$/m.exec(listen.stdout)?.[1] ?? '';
}, 60_000);

afterAll(async () => {
  listen.signal('SIGTERM');
  await Promise.all([listen.exited, agent.kill9()]);
});

/** Starts a task that runs until canceled (well beyond the test); resolves with its id. */
async function runningTask(binding: string): Promise<string> {
  const sent = await runCli([
    'send',
    base,
    'slowstream',
    '300',
    '100',
    '--no-wait',
    '--json',
    '--binding',
    binding,
  ]);
  expect(sent.code).toBe(0);
  return (JSON.parse(sent.stdout) as { task: { id: string } }).task.id;
}

describe('tandem push', () => {
  it.each(['jsonrpc', 'rest', 'grpc'])(
    'creates, lists, shows and deletes a config over %s, and tandem listen receives',
    async (binding) => {
      const on = ['--binding', binding];
      const taskId = await runningTask(binding);
      const id = `cfg-${binding}`;

      const created = await runCli(
        ['push', 'create', base, taskId, '--url', webhook, '--id', id, ...on],
        { env: { TANDEM_PUSH_TOKEN: PUSH_TOKEN } },
      );
      expect(created).toMatchObject({ code: 0, stderr: '' });
      expect(created.stdout).toBe(
        `created push config ${id} of task ${taskId}\n  url    ${webhook}\n  token  set\n  auth   -\n`,
      );
      expect(created.stdout).not.toContain(PUSH_TOKEN);

      const listed = await runCli(['push', 'list', base, taskId, ...on]);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(
        new RegExp(`^ID +URL +TOKEN +AUTH\\n${id} +${webhook} +set +-\\n$`),
      );

      const got = await runCli(['push', 'get', base, taskId, id, '--json', ...on]);
      expect(got.code).toBe(0);
      expect(JSON.parse(got.stdout)).toMatchObject({ id, taskId, url: webhook });

      // The cancel is an event of the task, pushed to the config just created.
      expect((await runCli(['cancel', base, taskId, ...on])).code).toBe(0);
      await listen.waitFor(`${taskId} status TASK_STATE_CANCELED`, { timeoutMs: 15_000 });

      const status = await runCli(['push', 'status', base, taskId, id, ...on]);
      expect(status.code).toBe(0);
      expect(status.stdout).toMatch(/^deliveries +ok\npending +\d+\nfailures +0 in a row\n/);

      const deleted = await runCli(['push', 'delete', base, taskId, id, ...on]);
      expect(deleted).toMatchObject({
        code: 0,
        stdout: `deleted push config ${id} of task ${taskId}\n`,
      });
      const after = await runCli(['push', 'list', base, taskId, ...on]);
      expect(after.stdout).toBe('No push configs.\n');
      const gone = await runCli(['push', 'get', base, taskId, id, ...on]);
      expect(gone.code).toBe(3);
      expect(gone.stderr).toMatch(/^tandem: TaskNotFoundError/);
    },
    90_000,
  );

  it('refuses push create without --url, and --url on another action', async () => {
    const missing = await runCli(['push', 'create', base, 'task-1']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^tandem push create: create needs --url <webhook>\n/);
    const misplaced = await runCli(['push', 'list', base, 'task-1', '--url', webhook]);
    expect(misplaced.code).toBe(2);
    expect(misplaced.stderr).toMatch(/--url is an option of push create, not of push list/);
  });
});

describe('inline push configs and refused deliveries', () => {
  it('pushes a streamed task with --push-url, and tandem listen names each delivery it refuses', async () => {
    const streamed = await runCli([
      'stream',
      base,
      'echo',
      'pushed inline',
      '--push-url',
      webhook,
      '--push-token',
      PUSH_TOKEN,
    ]);
    expect(streamed.code).toBe(0);
    const taskId = /^task (\S+)/m.exec(streamed.stdout)?.[1] ?? '';
    await listen.waitFor(`${taskId} status TASK_STATE_COMPLETED`, { timeoutMs: 15_000 });

    const wrong = await runCli([
      'send',
      base,
      'echo',
      'wrong token',
      '--push-url',
      webhook,
      '--push-token',
      'not-the-token',
    ]);
    expect(wrong.code).toBe(0);
    await listen.waitFor(
      'tandem listen: refused a delivery (HTTP 401): The notification token or credentials do not match',
      { stream: 'stderr', timeoutMs: 15_000 },
    );
    expect(listen.stderr).not.toContain('not-the-token');
  }, 60_000);
});
