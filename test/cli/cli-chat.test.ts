/**
 * `tandem chat` driven through its stdin (piped, and through a pseudo-terminal made by util-linux
 * `script`): multi-turn conversations, continuing a task that asked for input, and Ctrl-C
 * cancelling the running task on the server.
 */

import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../src/index.js';
import { CLI, CliProcess, ensureBuilt, runCli } from './cli-harness.js';
import { startCliServer, type CliTestServer } from './cli-server.js';

let server: CliTestServer;

beforeAll(async () => {
  await ensureBuilt();
  server = await startCliServer();
}, 120_000);

afterAll(() => server.close());

const PROMPT = 'you> ';

function count(text: string, part: string): number {
  return text.split(part).length - 1;
}

/** The task of `agent` whose first message was `text`. */
async function taskStartedWith(agent: 'dice' | 'echo', text: string): Promise<Task | undefined> {
  const tasks = await server.listTasks(agent);
  return tasks.find((task) => task.history?.[0]?.parts[0]?.text === text);
}

describe.concurrent('tandem chat with piped stdin', () => {
  it('keeps the context and answers the question of the agent with the next line', async () => {
    const { code, stdout, stderr } = await runCli(['chat', server.urlOf('dice')], {
      input: 'roll banana\n2d6\nd8\n',
    });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^you> roll banana\n.*What should I roll\?.*\nyou> 2d6\nRolled 2d6: /s);
    expect(stdout).toMatch(/\nyou> d8\nRolled 1?d8: \d\n[^]*\nyou> \n$/);
    expect(stderr).toMatch(/^Chatting with Dice\./);
    const contextId = /--context (\S+)\)/.exec(stderr)?.[1];

    const asked = await taskStartedWith('dice', 'roll banana');
    expect(asked?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(asked?.history?.map((message) => message.parts[0]?.text)).toContain('2d6');
    expect(asked?.contextId).toBe(contextId);
    expect((await taskStartedWith('dice', 'd8'))?.contextId).toBe(contextId);
  });

  it('waits for each answer before reading the next line', async () => {
    const cli = new CliProcess(['chat', server.urlOf('dice')]);
    await cli.waitFor(PROMPT);
    cli.write('roll an apple\n');
    await cli.waitFor('What should I roll?');
    await cli.waitFor(/\nyou> $/);
    cli.write('4d4\n');
    await cli.waitFor(/Rolled 4d4: /);
    cli.end();
    expect(await cli.exited).toBe(0);
  });

  it('shows whole answers of an agent that does not stream', async () => {
    const { code, stdout } = await runCli(['chat', server.urlOf('plain')], {
      input: 'report\nhello\nfail\n',
    });
    expect(code).toBe(0);
    expect(stdout).toContain('you> report\nSummary: all good\n{"score":42,"tags":["a","b"]}\n');
    expect(stdout).toContain('file: hello.txt (text/plain) 5 bytes\nReport finished\nyou> hello\n');
    expect(stdout).toContain('you> hello\nHi there!\nyou> fail\n✗ failed: The oven caught fire\n');
  });

  it('prints NDJSON with --json and no prompts', async () => {
    const { code, stdout } = await runCli(['chat', server.urlOf('dice'), '--json'], {
      input: 'roll d6\n',
    });
    expect(code).toBe(0);
    const events = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as object);
    expect(events.at(-1)).toMatchObject({
      statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } },
    });
  });

  it('cancels the running task on Ctrl-C, returns to the prompt, and exits 0 at EOF', async () => {
    const cli = new CliProcess(['chat', server.urlOf('echo')]);
    await cli.waitFor(PROMPT);
    cli.write('slowstream 50 100 7\n');
    await cli.waitFor(/x{14}/);
    cli.signal('SIGINT');
    await cli.waitFor(/✗ canceled\nyou> $/);
    expect(cli.stderr).toContain('canceling task');
    const task = await taskStartedWith('echo', 'slowstream 50 100 7');
    expect(task?.status.state).toBe('TASK_STATE_CANCELED');

    cli.write('echo still here\n');
    await cli.waitFor('still here\nyou> ');
    cli.end();
    expect(await cli.exited).toBe(0);
  });

  it('exits 0 on a second Ctrl-C during a task, and on Ctrl-C at the prompt', async () => {
    const busy = new CliProcess(['chat', server.urlOf('echo')]);
    await busy.waitFor(PROMPT);
    busy.write('slowstream 50 100 5\n');
    await busy.waitFor(/x{5}/);
    busy.signal('SIGINT');
    await busy.waitFor('canceling task', { stream: 'stderr' });
    busy.signal('SIGINT');
    expect(await busy.exited).toBe(0);

    const idle = new CliProcess(['chat', server.urlOf('echo')]);
    await idle.waitFor(PROMPT);
    idle.signal('SIGINT');
    expect(await idle.exited).toBe(0);
    expect(count(idle.stdout, PROMPT)).toBe(1);
  });
});

const hasScript = ((): boolean => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const quote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

describe.skipIf(!hasScript)('tandem chat on a terminal', () => {
  it('colours the prompt, shows a spinner, and Ctrl-C / Ctrl-D work as keys', async () => {
    const command = [process.execPath, CLI, 'chat', server.urlOf('echo')].map(quote).join(' ');
    const cli = new CliProcess([], { TERM: 'xterm' }, ['script', '-qfec', command, '/dev/null']);
    await cli.waitFor('\u001b[1myou> \u001b[22m');
    cli.write('echo hi there\r');
    await cli.waitFor(/hi there\r?\n/);
    cli.write('slowstream 50 100 6\r');
    await cli.waitFor(/waiting for the agent…|working…/);
    await cli.waitFor(/x{12}/);
    cli.write('\u0003');
    await cli.waitFor(/canceled/);
    const task = await taskStartedWith('echo', 'slowstream 50 100 6');
    expect(task?.status.state).toBe('TASK_STATE_CANCELED');
    await cli.waitFor(/canceled[^]*you> /);
    cli.write('\u0004');
    expect(await cli.exited).toBe(0);
  });
});
