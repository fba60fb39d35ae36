/**
 * `tandem send`, `stream` and `subscribe` against a real server: what they print for each kind of
 * answer, their `--json` output, their exit codes, and Ctrl-C cancelling a streamed task.
 */

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SendMessageResponse, StreamResponse } from '../../src/index.js';
import { CliProcess, ensureBuilt, runCli } from './cli-harness.js';
import {
  kitCredentialWarning,
  openGate,
  startCliServer,
  type CliTestServer,
} from './cli-server.js';

let server: CliTestServer;

beforeAll(async () => {
  await ensureBuilt();
  server = await startCliServer();
}, 120_000);

afterAll(() => server.close());

const REPORT = `Summary: all good
{"score":42,"tags":["a","b"]}
file: r.pdf (application/pdf) https://example.com/r.pdf
file: hello.txt (text/plain) 5 bytes
Report finished
`;

function ndjson(text: string): StreamResponse[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as StreamResponse);
}

describe.concurrent('tandem send', () => {
  it('prints artifacts as text, data as JSON, files as lines, then the status message', async () => {
    const { code, stdout, stderr } = await runCli(['send', server.urlOf('kit'), 'report']);
    expect(code).toBe(0);
    expect(stdout).toBe(REPORT);
    expect(stderr).toBe(kitCredentialWarning('send'));
  });

  it('joins the words of the text', async () => {
    const { code, stdout } = await runCli(['send', server.urlOf('dice'), 'roll', '2d6']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Rolled 2d6: \d \+ \d = \d+\n\{"notation":"2d6",/);
  });

  it('prints an artifact that was streamed in chunks as one text, not a line per chunk', async () => {
    const { code, stdout } = await runCli(['send', server.urlOf('echo'), 'slowstream 3 1 8']);
    expect(code).toBe(0);
    expect(stdout).toBe(`${'x'.repeat(24)}\n`);
  });

  it('prints the SendMessageResponse with --json', async () => {
    const { stdout } = await runCli(['send', server.urlOf('kit'), 'report', '--json']);
    const response = JSON.parse(stdout) as SendMessageResponse;
    expect(response.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(response.task?.artifacts?.[0]?.name).toBe('report');

    const message = await runCli(['send', server.urlOf('kit'), 'hello', '--json']);
    expect(JSON.parse(message.stdout)).toMatchObject({
      message: { role: 'ROLE_AGENT', parts: [{ text: 'Hi there!' }] },
    });
  });

  it("prints the agent's direct message", async () => {
    const { code, stdout } = await runCli(['send', server.urlOf('kit'), 'hello']);
    expect(code).toBe(0);
    expect(stdout).toBe('Hi there!\n');
  });

  it('exits 1 with one line when the task fails or is rejected', async () => {
    const failed = await runCli(['send', server.urlOf('kit'), 'fail']);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe('The oven caught fire\n');
    expect(failed.stderr.replace(kitCredentialWarning('send'), '')).toMatch(
      /^tandem: the task failed \(task [\w-]+\)\n$/,
    );

    const rejected = await runCli(['send', server.urlOf('echo'), 'juggle']);
    expect(rejected.code).toBe(1);
    expect(rejected.stdout).toContain('Unknown command "juggle"');
    expect(rejected.stderr).toMatch(/^tandem: the agent rejected the task \(task [\w-]+\)\n$/);
  });

  it('prints the question of a task that needs input, and continues it with --task', async () => {
    const asked = await runCli(['send', server.urlOf('dice'), 'roll banana']);
    expect(asked.code).toBe(0);
    expect(asked.stdout).toContain('What should I roll?');
    const taskId = /--task (\S+)/.exec(asked.stderr)?.[1] ?? '';
    expect(taskId).not.toBe('');

    const answered = await runCli(['send', server.urlOf('dice'), '--task', taskId, '3d4']);
    expect(answered.code).toBe(0);
    expect(answered.stdout).toMatch(/^Rolled 3d4: /);
    expect((await server.getTask('dice', taskId)).status.state).toBe('TASK_STATE_COMPLETED');

    const auth = await runCli(['send', server.urlOf('kit'), 'auth']);
    expect(auth.code).toBe(0);
    expect(auth.stdout).toBe('Please sign in first\n');
    expect(auth.stderr).toContain('waiting for authorization');
  }, 60_000);

  it('sends within --context', async () => {
    const sent = await runCli(['send', server.urlOf('kit'), 'report', '--json']);
    const first = JSON.parse(sent.stdout) as SendMessageResponse;
    const contextId = first.task?.contextId ?? '';
    const args = ['send', server.urlOf('kit'), 'report', '--context', contextId, '--json'];
    const second = JSON.parse((await runCli(args)).stdout) as SendMessageResponse;
    expect(second.task?.contextId).toBe(contextId);
    expect(second.task?.id).not.toBe(first.task?.id);
  });

  it('attaches --file as a raw part with a media type from the extension', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tandem-cli-'));
    writeFileSync(join(dir, 'notes.json'), '{"a":1}');
    writeFileSync(join(dir, 'blob.weird'), new Uint8Array([1, 2, 3]));
    const args = ['--file', join(dir, 'notes.json'), '--file', join(dir, 'blob.weird')];
    const { code, stdout } = await runCli(['send', server.urlOf('kit'), 'files', ...args]);
    expect(code).toBe(0);
    expect(stdout).toBe(
      'got notes.json application/json 7 bytes\ngot blob.weird application/octet-stream 3 bytes\n',
    );
  });

  it('returns at once with --no-wait; subscribe follows the task to its end', async () => {
    const sent = await runCli(['send', server.urlOf('kit'), 'gate no-wait', '--no-wait']);
    expect(sent.code).toBe(0);
    const [, taskId = ''] = /^task (\S+) (?:submitted|working)\n$/.exec(sent.stdout) ?? [];
    expect(taskId).not.toBe('');
    expect(sent.stderr).toContain(`tandem subscribe ${server.urlOf('kit')} ${taskId}`);

    const followed = new CliProcess(['subscribe', server.urlOf('kit'), taskId]);
    await followed.waitFor('before');
    openGate('no-wait');
    expect(await followed.exited).toBe(0);
    expect(followed.stdout).toMatch(new RegExp(`^task ${taskId}  context \\S+\\n`));
    expect(followed.stdout).toMatch(/\n» working\nbeforeafter\n✓ completed\n$/);
  });
});

describe.concurrent('tandem stream', () => {
  it('renders status changes, appends text chunks in place and ends with the state', async () => {
    const { code, stdout, stderr } = await runCli(['stream', server.urlOf('kit'), 'chunks']);
    expect(code).toBe(0);
    expect(stderr).toBe(kitCredentialWarning('stream'));
    expect(stdout).toMatch(/^task \S+ {2}context \S+\n/);
    expect(stdout).toContain('» working: warming up\nHello\n✓ completed\n');
    expect(stdout.endsWith('✓ completed\n')).toBe(true);
  });

  it('streams many chunks onto one line', async () => {
    const { stdout } = await runCli(['stream', server.urlOf('echo'), 'slowstream 3 20 8']);
    expect(stdout).toContain(`\n${'x'.repeat(24)}\n✓ completed\n`);
  });

  it('prints data parts as JSON and the failure reason, with the exit code of the state', async () => {
    const dice = await runCli(['stream', server.urlOf('dice'), 'roll d20']);
    expect(dice.code).toBe(0);
    expect(dice.stdout).toMatch(/\nRolled 1?d20: \d+\n\{"notation":"1?d20",/);

    const failed = await runCli(['stream', server.urlOf('kit'), 'fail']);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain('✗ failed: The oven caught fire\n');
    expect(failed.stderr.replace(kitCredentialWarning('stream'), '')).toMatch(
      /^tandem: the task failed/,
    );
  });

  it('prints one StreamResponse per line with --json', async () => {
    const { code, stdout, stderr } = await runCli([
      'stream',
      server.urlOf('kit'),
      'chunks',
      '--json',
    ]);
    expect(code).toBe(0);
    expect(stderr).toBe(kitCredentialWarning('stream'));
    const events = ndjson(stdout);
    expect(events[0]?.task?.id).toBeDefined();
    expect(events.filter((event) => event.artifactUpdate !== undefined)).toHaveLength(2);
    expect(events.at(-1)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('cancels the task on the server on Ctrl-C and exits 1', async () => {
    const cli = new CliProcess(['stream', server.urlOf('echo'), 'slowstream 50 100']);
    await cli.waitFor(/x{64}/);
    cli.signal('SIGINT');
    const code = await cli.exited;
    expect(code).toBe(1);
    expect(cli.stderr).toContain('canceling task');
    expect(cli.stdout).toMatch(/\n✗ canceled\n$/);
    const taskId = /^task (\S+)/.exec(cli.stdout)?.[1] ?? '';
    expect((await server.getTask('echo', taskId)).status.state).toBe('TASK_STATE_CANCELED');
  });

  it('subscribe exits 3 for an unknown task', async () => {
    const { code, stderr } = await runCli(['subscribe', server.urlOf('echo'), 'nope']);
    expect(code).toBe(3);
    expect(stderr).toMatch(/^tandem: TaskNotFoundError \(-32001\): .*\n$/);
  });

  it('subscribe --json prints NDJSON', async () => {
    const task = await server.send('kit', 'gate json', { wait: false });
    const cli = new CliProcess(['subscribe', server.urlOf('kit'), task.id, '--json']);
    await cli.waitFor(/"task":/);
    openGate('json');
    expect(await cli.exited).toBe(0);
    const events = ndjson(cli.stdout);
    expect(events[0]?.task?.id).toBe(task.id);
    expect(events.at(-1)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
  });
});
