/**
 * `tandem serve`'s command line, through the built CLI as a child process: every duration flag
 * refuses a bare number and a value under its minimum, unknown flags get a did-you-mean, and
 * Node's parseArgs wording never reaches the user. Each case exits 2 before anything starts.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli } from './cli-harness.js';

const dir = mkdtempSync(join(tmpdir(), 'tandem-serve-flags-'));
const TOKENS = join(dir, 'tokens');
writeFileSync(TOKENS, 'alice s3cret-token-0123456789abcdef\n');

beforeAll(ensureBuilt);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `tandem serve` with `args`; resolves with its exit code and stderr. */
async function serve(args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  const { code, stderr } = await runCli(['serve', '--store', 'memory', ...args]);
  return { code, stderr };
}

/** Each duration flag, with what else it needs to be read. */
const DURATIONS: readonly [flag: string, extra: readonly string[], minimum: string | undefined][] =
  [
    ['--retention', [], '1m'],
    ['--orphan-timeout', [], '1s'],
    ['--shutdown-timeout', [], undefined],
    ['--heartbeat', [], '1s'],
    ['--push-timeout', [], undefined],
    ['--push-retry', [], '100ms'],
    ['--auth-failure-window', ['--auth', 'bearer', '--token-file', TOKENS], '1s'],
    ['--model-timeout', ['--agent', 'chat', '--model-url', 'http://127.0.0.1:9/v1'], '1s'],
  ];

describe('tandem serve durations', () => {
  it.each(DURATIONS)('%s refuses a bare number, showing the form', async (flag, extra) => {
    const { code, stderr } = await serve([...extra, flag, '30']);
    expect(code).toBe(2);
    expect(stderr).toContain(`${flag} needs a unit: give 30s, 30m or 30d`);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it.each(DURATIONS.filter(([, , minimum]) => minimum !== undefined))(
    '%s refuses a value under its minimum',
    async (flag, extra, minimum) => {
      const { code, stderr } = await serve([...extra, flag, '1ms']);
      expect(code).toBe(2);
      expect(stderr).toContain(`${flag} must be at least ${minimum}, got "1ms"`);
    },
  );

  it('refuses a push timeout outside 10s to 30s', async () => {
    const { code, stderr } = await serve(['--push-timeout', '5s']);
    expect(code).toBe(2);
    expect(stderr).toContain('--push-timeout must be between 10s and 30s');
  });

  it('says the units in --help', async () => {
    const { code, stdout } = await runCli(['serve', '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('Durations take a unit: ms, s, m, h or d');
    expect(stdout).toContain('--trust-proxy');
  });
});

describe('tandem serve flag mistakes', () => {
  it.each([
    [['--prot', '8080'], 'unknown flag --prot; did you mean "--port"?'],
    [['--hearbeat', '5s'], 'unknown flag --hearbeat; did you mean "--heartbeat"?'],
    [['--zzzzzzzz'], 'unknown flag --zzzzzzzz'],
    [['--port'], '--port needs a value'],
    [['--port', '--host', 'x'], '--port needs a value, got the flag --host'],
    [['--no-push=yes'], '--no-push takes no value'],
    [['8080'], 'unexpected argument "8080"'],
    [['--trust-proxy', 'everyone'], '--trust-proxy takes CIDR ranges or addresses'],
    [['--trust-proxy', '0'], '--trust-proxy as a number of hops must be 1 to 32'],
  ])('%j', async (args, message) => {
    const { code, stderr } = await serve(args);
    expect(code).toBe(2);
    expect(stderr).toContain(`tandem serve: ${message}`);
    // Node's own wording, which speaks of its rules rather than the mistake.
    expect(stderr).not.toMatch(/To specify a positional argument|ERR_PARSE_ARGS|Unknown option '/);
    expect(stderr).toContain('Run `tandem serve --help` for the options.');
  });
});

describe('tandem serve configuration files', () => {
  it('an unknown chat setting gets the closest known one, nested ones too', async () => {
    const config = join(dir, 'chat.json');
    writeFileSync(config, JSON.stringify({ temprature: 1, history: { maxTurnz: 3 } }));
    const { code, stderr } = await serve([
      '--agent',
      'chat',
      '--model-url',
      'http://127.0.0.1:9/v1',
      '--model',
      'm',
      '--config',
      config,
    ]);
    expect(code).toBe(2);
    expect(stderr).toContain('temprature: unknown setting; did you mean "temperature"?');
    expect(stderr).toContain('history.maxTurnz: unknown setting; did you mean "maxTurns"?');
  });
});
