/**
 * The `tandem` CLI as a user runs it: help and usage errors, `card`, `tasks`, `get` and `cancel`
 * against a real server, and the exit codes and one-line messages of failures.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListTasksResponse, Task } from '../../src/index.js';
import { ensureBuilt, runCli } from './cli-harness.js';
import {
  startCardServer,
  startCliServer,
  unreachableUrl,
  type CliTestServer,
} from './cli-server.js';

let server: CliTestServer;

beforeAll(async () => {
  await ensureBuilt();
  server = await startCliServer();
}, 120_000);

afterAll(() => server.close());

const COMMANDS = ['card', 'send', 'stream', 'chat', 'tasks', 'get', 'cancel', 'subscribe'];

/** The lines of a text, without the empty last one. */
const lines = (text: string): string[] => text.split('\n').filter((line) => line !== '');

describe.concurrent('help and usage errors', () => {
  it('lists every command', async () => {
    const { code, stdout } = await runCli(['--help']);
    expect(code).toBe(0);
    for (const command of [...COMMANDS, 'serve']) expect(stdout).toContain(`  ${command} `);
  });

  it.each(COMMANDS)('%s --help prints its usage and the shared options', async (command) => {
    const { code, stdout, stderr } = await runCli([command, '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^Usage: tandem ${command} <url>`));
    expect(stdout).toContain('--binding <binding>');
    expect(stderr).toBe('');
  });

  it.each([
    [['send'], 'send: missing <url>'],
    [['send', 'URL'], 'send: missing <text> (or --file)'],
    [['get', 'URL'], 'get: missing <taskId>'],
    [['get', 'URL', 'a', 'b'], 'get: unexpected argument "b"'],
    [['card', 'URL', '--bogus'], 'card: unknown option --bogus'],
    [['card', 'not-a-url'], 'card: <url> must be an absolute URL'],
    [['card', 'URL', '--binding', 'pigeon'], 'card: --binding must be jsonrpc, rest or grpc'],
    [['card', 'URL', '--timeout', 'soon'], 'card: --timeout must be a duration'],
    [['card', 'URL', '--header', 'no colon'], "card: --header must look like 'Name: value'"],
    [['tasks', 'URL', '--limit', '0'], 'tasks: --limit must be a whole number of at least 1'],
    [['tasks', 'URL', '--status', 'asleep'], 'tasks: --status must be one of'],
    [['send', 'URL', 'hi', '--file', '/no/such/file'], 'send: --file /no/such/file cannot be read'],
  ])('%j exits 2 with one line and a hint', async (args, message) => {
    const url = server.urlOf('kit');
    const { code, stdout, stderr } = await runCli(args.map((arg) => arg.replace('URL', url)));
    expect(code).toBe(2);
    expect(stdout).toBe('');
    const [first, hint, ...rest] = lines(stderr);
    expect(first).toContain(`tandem ${message}`);
    expect(hint).toMatch(/^Run `tandem \w+ --help` for the usage\.$/);
    expect(rest).toEqual([]);
  });

  it('exits 2 for an unknown command', async () => {
    const { code, stderr } = await runCli(['fly']);
    expect(code).toBe(2);
    expect(stderr).toContain('unknown command "fly"');
  });
});

describe.concurrent('connection and protocol errors', () => {
  it.each([
    ['card', []],
    ['send', ['hello']],
    ['tasks', []],
  ])('%s exits 3 with one line when the agent cannot be reached', async (command, rest) => {
    const url = await unreachableUrl();
    const { code, stdout, stderr } = await runCli([command, url, ...rest]);
    expect(code).toBe(3);
    expect(stdout).toBe('');
    expect(lines(stderr)).toHaveLength(1);
    expect(stderr).toMatch(/^tandem: \w+Error: .*ECONNREFUSED/);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('says to allow more time when a call times out', async () => {
    const { code, stderr } = await runCli(['send', server.urlOf('kit'), 'hi', '--timeout', '1ms']);
    expect(code).toBe(3);
    expect(lines(stderr)).toEqual([expect.stringMatching(/allow more time with --timeout$/)]);
  });

  it('exits 3 with the error type and code of an A2A error', async () => {
    const { code, stderr } = await runCli(['get', server.urlOf('echo'), 'no-such-task']);
    expect(code).toBe(3);
    expect(lines(stderr)).toHaveLength(1);
    expect(stderr).toMatch(/^tandem: TaskNotFoundError \(-32001\): /);
  });

  it('exits 3 when no interface matches --binding', async () => {
    const { code, stderr } = await runCli(['tasks', server.urlOf('kit'), '--binding', 'grpc']);
    expect(code).toBe(3);
    expect(stderr).toMatch(/^tandem: NoCompatibleInterfaceError: /);
  });

  it('sends --token and --header, and exits 3 on an answer that is not A2A', async () => {
    const fake = await startCardServer((url) => ({
      name: 'Fake',
      description: 'Answers every request with its card',
      supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      version: '1.0.0',
      capabilities: {},
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 's', name: 'S', description: 'S', tags: ['s'] }],
    }));
    try {
      const args = ['--token', 's3cret', '--header', 'X-Trace: abc 123'];
      const { code, stderr } = await runCli(['get', fake.url, 'task-1', ...args]);
      expect(code).toBe(3);
      // The warning that --token is visible in ps, then the failure.
      expect(lines(stderr)).toHaveLength(2);
      expect(lines(stderr)[0]).toMatch(/^tandem get: warning: --token on the command line/);
      expect(stderr).not.toContain('s3cret');
      const call = fake.requests.at(-1);
      expect(call?.authorization).toBe('Bearer s3cret');
      expect(call?.['x-trace']).toBe('abc 123');
    } finally {
      await fake.close();
    }
  });
});

describe.concurrent('tandem card', () => {
  it('pretty-prints the card, its interfaces and skills', async () => {
    const url = server.urlOf('dice');
    const { code, stdout, stderr } = await runCli(['card', url]);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^Dice v1\.0\.0\n/);
    expect(stdout).toContain('streaming: yes, push notifications: no, extended card: no');
    expect(stdout).toContain('Interfaces (2)');
    expect(stdout).toMatch(new RegExp(`JSONRPC +1\\.0 +${url}\\S* +\\(selected\\)`));
    expect(stdout).toContain('Skills (1)');
    expect(stdout).toContain('roll-dice  Roll dice');
    expect(stdout).toContain('tags: dice, random, games, tabletop');
    expect(stdout).toContain('examples: "roll 2d6", "d20+3"');
    expect(stdout).not.toContain('\u001b[');
  });

  it('shows the provider and security schemes, and colours with FORCE_COLOR', async () => {
    const { stdout } = await runCli(['card', server.urlOf('kit')]);
    expect(stdout).toContain('Tandem tests (https://example.com)');
    expect(stdout).toContain(
      'Security\n  bearer  HTTP Bearer (JWT)\n  key  API key in header "X-Api-Key"\n' +
        '  requires: bearer [read] or key\n',
    );
    const coloured = await runCli(['card', server.urlOf('kit')], { env: { FORCE_COLOR: '1' } });
    expect(coloured.stdout).toContain('\u001b[1mKit\u001b[22m');
    const plain = await runCli(['card', server.urlOf('kit'), '--no-color'], {
      env: { FORCE_COLOR: '1' },
    });
    expect(plain.stdout).toBe(stdout);
    const noColor = await runCli(['card', server.urlOf('kit')], {
      env: { FORCE_COLOR: '1', NO_COLOR: '1' },
    });
    expect(noColor.stdout).toBe(stdout);
  }, 60_000);

  it('prints the card as JSON with --json', async () => {
    const { code, stdout } = await runCli(['card', server.urlOf('dice'), '--json']);
    expect(code).toBe(0);
    const card = JSON.parse(stdout) as { name: string; supportedInterfaces: unknown[] };
    expect(card.name).toBe('Dice');
    expect(card.supportedInterfaces).toEqual([
      expect.objectContaining({ protocolBinding: 'JSONRPC', protocolVersion: '1.0' }),
      expect.objectContaining({ protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }),
    ]);
  });

  it('lists the problems of an invalid card and exits 1', async () => {
    const broken = await startCardServer(() => ({ name: 'Broken', description: 'No interfaces' }));
    try {
      const { code, stdout, stderr } = await runCli(['card', broken.url]);
      expect(code).toBe(1);
      expect(stdout).toContain('"name": "Broken"');
      expect(stdout).toMatch(/Problems \(\d+\)/);
      expect(stdout).toMatch(/^ {2}supportedInterfaces: /m);
      expect(lines(stderr)).toEqual([
        expect.stringMatching(/^tandem: the agent card of .* is invalid/),
      ]);

      const json = await runCli(['card', broken.url, '--json']);
      expect(json.code).toBe(1);
      expect(JSON.parse(json.stdout)).toEqual({ name: 'Broken', description: 'No interfaces' });
    } finally {
      await broken.close();
    }
  });

  it('shows a valid card no interface of which matches --binding, and exits 3', async () => {
    const { code, stdout, stderr } = await runCli([
      'card',
      server.urlOf('dice'),
      '--binding',
      'grpc',
    ]);
    expect(code).toBe(3);
    expect(stdout).toMatch(/^Dice v1\.0\.0\n/);
    expect(stdout).not.toContain('(selected)');
    expect(stderr).toMatch(/^tandem: NoCompatibleInterfaceError: /);
  });
});

describe('tandem tasks, get and cancel', () => {
  let report: Task;
  let failed: Task;

  beforeAll(async () => {
    report = await server.send('kit', 'report');
    failed = await server.send('kit', 'fail');
  });

  it('lists tasks as a table', async () => {
    const { code, stdout } = await runCli(['tasks', server.urlOf('kit')]);
    expect(code).toBe(0);
    const [header, ...rows] = lines(stdout);
    expect(header).toMatch(/^ID +STATE +UPDATED +CONTEXT$/);
    expect(rows).toContainEqual(
      expect.stringMatching(new RegExp(`^${report.id} +completed +\\S+ +${report.contextId}$`)),
    );
    expect(rows).toContainEqual(expect.stringMatching(new RegExp(`^${failed.id} +failed `)));
  });

  it('filters by --status (short or full name) and --context', async () => {
    const byStatus = await runCli(['tasks', server.urlOf('kit'), '--status', 'FAILED', '--json']);
    const listed = JSON.parse(byStatus.stdout) as ListTasksResponse;
    expect(listed.tasks.map((task) => task.id)).toContain(failed.id);
    expect(listed.tasks.every((task) => task.status.state === 'TASK_STATE_FAILED')).toBe(true);

    const full = await runCli(['tasks', server.urlOf('kit'), '--status', 'task_state_completed']);
    expect(full.stdout).toContain(report.id);
    expect(full.stdout).not.toContain(failed.id);

    const context = await runCli([
      'tasks',
      server.urlOf('kit'),
      '--context',
      report.contextId ?? '',
    ]);
    expect(lines(context.stdout).slice(1)).toEqual([expect.stringContaining(report.id)]);
  });

  it('shows at most --limit tasks and continues from --page-token', async () => {
    for (let i = 0; i < 3; i++) await server.send('kit', 'hello-task');
    const first = await runCli(['tasks', server.urlOf('kit'), '--limit', '2', '--json']);
    const page = JSON.parse(first.stdout) as ListTasksResponse;
    expect(page.tasks).toHaveLength(2);
    expect(page.pageSize).toBe(2);
    expect(page.nextPageToken).not.toBe('');
    const next = await runCli([
      'tasks',
      server.urlOf('kit'),
      '--limit',
      '2',
      '--page-token',
      page.nextPageToken,
      '--json',
    ]);
    const more = JSON.parse(next.stdout) as ListTasksResponse;
    expect(more.tasks.map((task) => task.id)).not.toContain(page.tasks[0]?.id);

    const human = await runCli(['tasks', server.urlOf('kit'), '--limit', '1']);
    expect(lines(human.stdout)).toHaveLength(2);
    expect(human.stderr).toMatch(/^\(1 of \d+ tasks; show more with --limit\)$/m);
  });

  it('prints a task with its history and artifacts', async () => {
    const { code, stdout } = await runCli(['get', server.urlOf('kit'), report.id]);
    expect(code).toBe(0);
    expect(stdout).toContain(
      `task     ${report.id}\ncontext  ${report.contextId}\nstate    completed`,
    );
    expect(stdout).toContain('message\n  Report finished\n');
    expect(stdout).toMatch(/History \(\d\)\n {2}user\n {4}report\n/);
    expect(stdout).toContain('Artifacts (1)\n  report (artifact ');
    expect(stdout).toContain('    Summary: all good\n    {"score":42,"tags":["a","b"]}\n');
    expect(stdout).toContain('    file: r.pdf (application/pdf) https://example.com/r.pdf\n');
    expect(stdout).toContain('    file: hello.txt (text/plain) 5 bytes\n');
  });

  it('prints the task as received with --json', async () => {
    const { stdout } = await runCli(['get', server.urlOf('kit'), report.id, '--json']);
    expect(JSON.parse(stdout)).toEqual(await server.getTask('kit', report.id));
  });

  it('cancels a running task, and exits 1 when it cannot be canceled', async () => {
    const running = await server.send('echo', 'slowstream 100 100', { wait: false });
    const { code, stdout } = await runCli(['cancel', server.urlOf('echo'), running.id]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/state +canceled/);
    expect((await server.getTask('echo', running.id)).status.state).toBe('TASK_STATE_CANCELED');

    const again = await runCli(['cancel', server.urlOf('echo'), running.id, '--json']);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toMatchObject({
      error: { type: 'TaskNotCancelableError', code: -32002, exitCode: 1 },
    });
    expect(lines(again.stderr)).toEqual([
      expect.stringMatching(/^tandem: TaskNotCancelableError \(-32002\): /),
    ]);
  });
});
