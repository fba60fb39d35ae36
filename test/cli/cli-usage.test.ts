/**
 * The mistakes a new user makes on the command line, answered in the user's words, as child
 * processes: a bare number for every client duration flag, a mistyped command or flag (with a
 * did-you-mean, and never Node's parseArgs wording), and a reader that closes the pipe
 * (`tandem tasks URL | head -1`), which ends the command quietly.
 */

import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ensureBuilt, runCli } from './cli-harness.js';
import { startCliServer, type CliTestServer } from './cli-server.js';

let server: CliTestServer;

beforeAll(async () => {
  await ensureBuilt();
  server = await startCliServer();
}, 120_000);

afterAll(() => server.close());

/** Every client command and the arguments it needs besides its options. */
const CLIENT_COMMANDS: readonly (readonly string[])[] = [
  ['card', 'URL'],
  ['send', 'URL', 'hello'],
  ['stream', 'URL', 'hello'],
  ['chat', 'URL'],
  ['tasks', 'URL'],
  ['get', 'URL', 'task-1'],
  ['cancel', 'URL', 'task-1'],
  ['subscribe', 'URL', 'task-1'],
  ['push', 'list', 'URL', 'task-1'],
  ['check', 'URL'],
];

/** Node's own parseArgs phrases, which must never reach the user. */
const NODE_WORDING = /Unknown option '|To specify a positional|argument missing|ERR_PARSE_ARGS/;

const withUrl = (args: readonly string[]): string[] =>
  args.map((arg) => (arg === 'URL' ? server.urlOf('echo') : arg));

describe.concurrent('durations', () => {
  it.each(CLIENT_COMMANDS)(
    '%s refuses --timeout with a bare number, naming the units',
    async (...args) => {
      const { code, stdout, stderr } = await runCli([...withUrl(args), '--timeout', '5']);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toContain('--timeout needs a unit: give 5s, 5m or 5d (units: ms, s, m, h, d)');
    },
  );

  it.each(CLIENT_COMMANDS)('%s --help says which units --timeout takes', async (...args) => {
    const { code, stdout } = await runCli([args[0] ?? '', '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /--timeout <duration> +Time limit of each (call|request): a number and a unit \(ms, s, m, h, d\)/,
    );
  });

  it('still takes a duration with a unit, and 0 for no limit', async () => {
    expect((await runCli(['tasks', server.urlOf('echo'), '--timeout', '30s'])).code).toBe(0);
    expect((await runCli(['tasks', server.urlOf('echo'), '--timeout', '0'])).code).toBe(0);
  });
});

describe.concurrent('typos', () => {
  it('suggests the command meant', async () => {
    const { code, stderr } = await runCli(['sned', 'x']);
    expect(code).toBe(2);
    expect(stderr).toBe(
      'tandem: unknown command "sned"; did you mean "send"? Run `tandem --help` for the list.\n',
    );
  });

  it('says when no command is close', async () => {
    const { code, stderr } = await runCli(['fly']);
    expect(code).toBe(2);
    expect(stderr).toBe('tandem: unknown command "fly". Run `tandem --help` for the list.\n');
  });

  it.each(CLIENT_COMMANDS)('%s suggests --json for --jsn, in its own words', async (...args) => {
    const name = args[0] === 'push' ? 'push list' : args[0];
    const { code, stdout, stderr } = await runCli([...withUrl(args), '--jsn']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      `tandem ${name}: unknown option --jsn; did you mean --json?\nRun \`tandem ${name} --help\` for the usage.\n`,
    );
  });

  it.each([
    [['listen', '--prot', '0'], 'tandem listen: unknown option --prot; did you mean --port?'],
    [['keygen', '--outt', 'x'], 'tandem keygen: unknown option --outt; did you mean --out?'],
    [['schema', '--hepl'], 'tandem schema: unknown option --hepl; did you mean --help?'],
    [['inspect', '--no-opn'], 'tandem inspect: unknown option --no-opn; did you mean --no-open?'],
    [['tasks', 'URL', '--timeout'], 'tandem tasks: --timeout needs a value'],
    [['tasks', 'URL', '--json=yes'], 'tandem tasks: --json takes no value'],
    [
      ['tasks', 'URL', '--zzzzzz'],
      'tandem tasks: unknown option --zzzzzz; to pass it as text, put it after --',
    ],
    [['push', 'lst', 'URL'], 'tandem push: unknown action "lst"; did you mean "list"?'],
  ])('%j is answered with one line, not parseArgs wording', async (args, message) => {
    const { code, stderr } = await runCli(withUrl(args));
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe(message);
    expect(stderr).not.toMatch(NODE_WORDING);
  });
});

describe('a closed pipe', () => {
  it('ends `tandem tasks URL | head -1` quietly', async () => {
    for (let i = 0; i < 3; i += 1) await server.send('echo', `echo ${i}`);
    const child = spawn(process.execPath, [CLI, 'tasks', server.urlOf('echo')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // The reader goes away before the command writes a line, as `head -1` does after one.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
