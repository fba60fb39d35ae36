/**
 * What a running `tandem serve` prints, as a child process whose stdout is a pipe (as under a log
 * shipper): stdout carries JSON log lines only and the human banner goes to stderr; a bind
 * beyond loopback without --auth is warned about and its banner names a URL other machines can
 * use; a SIGHUP whose credential file went bad is one log line with the reason, no stack trace.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliProcess, ensureBuilt } from './cli-harness.js';

const BANNER = /Tandem is serving .* at (http:\/\/\S+)/;
const dir = mkdtempSync(join(tmpdir(), 'tandem-serve-output-'));

beforeAll(ensureBuilt);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts `tandem serve`; resolves once its banner is out. */
async function start(args: readonly string[]): Promise<{ serve: CliProcess; url: string }> {
  const serve = new CliProcess(['serve', '--store', 'memory', '--port', '0', ...args]);
  await serve.waitFor(BANNER, { stream: 'stderr' });
  return { serve, url: BANNER.exec(serve.stderr)?.[1] as string };
}

async function stop(serve: CliProcess): Promise<number | null> {
  serve.signal('SIGTERM');
  return serve.exited;
}

/** Every stdout line, parsed; fails on a line that is not JSON. */
function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('tandem serve output when stdout is not a terminal', () => {
  it('JSON log lines only on stdout, the banner on stderr', async () => {
    const { serve, url } = await start(['--agent', 'echo']);
    const response = await fetch(`${url}/.well-known/agent-card.json`);
    expect(response.status).toBe(200);
    await serve.waitFor('"msg":"request"');
    expect(await stop(serve)).toBe(0);
    const lines = jsonLines(serve.stdout);
    expect(lines.map((line) => line.msg)).toContain('tandem is serving');
    expect(serve.stdout).not.toContain('Tandem is serving');
    expect(serve.stderr).toContain(`echo         ${url}/.well-known/agent-card.json`);
  });

  it('warns of a bind beyond loopback without --auth, and names a URL for other machines', async () => {
    const { serve, url } = await start(['--agent', 'echo', '--host', '0.0.0.0']);
    expect(await stop(serve)).toBe(0);
    const warning = jsonLines(serve.stdout).find((line) => line.level === 40);
    expect(warning?.msg).toContain(
      'every caller shares one anonymous principal and sees every task',
    );
    expect(url).not.toContain('0.0.0.0');
    const external = Object.values(networkInterfaces())
      .flatMap((entries) => entries ?? [])
      .find((entry) => !entry.internal && entry.family === 'IPv4');
    // A machine with no address but loopback has no URL to give other machines.
    if (external !== undefined) {
      expect(serve.stderr).toContain(`from other machines: http://${external.address}:`);
    }
    expect(serve.stderr).not.toMatch(/http:\/\/0\.0\.0\.0/);
  });

  it('no warning on loopback, nor with --auth', async () => {
    const tokens = join(dir, 'tokens-ok');
    writeFileSync(tokens, 'alice s3cret-token-0123456789abcdef\n');
    const loopback = await start(['--agent', 'echo']);
    const authed = await start([
      '--agent',
      'echo',
      '--host',
      '0.0.0.0',
      '--auth',
      'bearer',
      '--token-file',
      tokens,
    ]);
    await Promise.all([stop(loopback.serve), stop(authed.serve)]);
    for (const { serve } of [loopback, authed]) {
      expect(jsonLines(serve.stdout).filter((line) => line.level === 40)).toEqual([]);
    }
  });

  it('a SIGHUP whose credential file went bad: one line with the reason, no stack', async () => {
    const tokens = join(dir, 'tokens');
    writeFileSync(tokens, 'alice s3cret-token-0123456789abcdef\n');
    const { serve } = await start(['--agent', 'echo', '--auth', 'bearer', '--token-file', tokens]);
    rmSync(tokens);
    serve.signal('SIGHUP');
    await serve.waitFor('could not re-read credentials');
    expect(await stop(serve)).toBe(0);
    const failure = jsonLines(serve.stdout).find((line) => line.level === 50);
    expect(failure?.msg).toBe('could not re-read credentials; keeping the old ones');
    expect(failure?.reason).toEqual(expect.stringContaining(tokens));
    expect(failure).not.toHaveProperty('err');
    expect(serve.stdout + serve.stderr).not.toMatch(/\n\s+at /);
  });
});
