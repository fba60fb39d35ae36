/**
 * The benchmark harness (`bench/run.mjs`) in quick mode with its smallest parameters, against the
 * floor, a2a-js and Tandem: every target passes the smoke checks of bench-agent.md (over JSON-RPC,
 * and over HTTP+JSON and gRPC where it is measured on them), and every scenario yields a
 * measurement per target it applies to, with every answer checked — or, for Tandem's gRPC rows
 * when the build under test has no gRPC server, a row saying it is not available. A test of the
 * harness only — it asserts nothing about speed.
 */

import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

interface SmokeCheck {
  point: string;
  name: string;
  ok: boolean;
  detail?: string;
}

interface SmokeResult {
  ok: boolean;
  checks: SmokeCheck[];
  unavailable?: string;
}

interface BenchResults {
  mode: string;
  targets: Record<
    string,
    { smoke: SmokeResult; transports?: { rest?: SmokeResult; grpc?: SmokeResult } }
  >;
  scenarios: {
    id: string;
    rounds: {
      measurements: Record<string, { error?: string; failures?: number; unavailable?: string }>;
    }[];
    summary: Record<string, { metrics: Record<string, number>; unavailable?: string }>;
  }[];
  goals: { label: string; target: string; pass: boolean | null }[];
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TARGETS = ['floor', 'a2a-js', 'tandem'];

/** Scenario → the targets it runs on (of the three above) and the metric that must be a number. */
const EXPECTED: Record<string, { targets: string[]; metric: string }> = {
  a: { targets: TARGETS, metric: 'rps' },
  b: { targets: TARGETS, metric: 'rps' },
  c10: { targets: TARGETS, metric: 'chunksPerSec' },
  c100: { targets: TARGETS, metric: 'chunksPerSec' },
  c400: { targets: TARGETS, metric: 'chunksPerSec' },
  d: { targets: TARGETS, metric: 'ttfeP99Ms' },
  e: { targets: TARGETS, metric: 'bytesPerTask' },
  f: { targets: TARGETS, metric: 'coldStartMs' },
  list: { targets: ['tandem'], metric: 'p50Ms' },
  'rest-a': { targets: ['a2a-js', 'tandem'], metric: 'rps' },
  'rest-b': { targets: ['a2a-js', 'tandem'], metric: 'rps' },
  'grpc-a': { targets: TARGETS, metric: 'rps' },
  'grpc-c100': { targets: TARGETS, metric: 'chunksPerSec' },
};

/** Why this target's gRPC rows are not measured (a build without gRPC), or undefined. */
function grpcUnavailable(results: BenchResults, target: string): string | undefined {
  return results.targets[target]?.transports?.grpc?.unavailable;
}

function runBench(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['bench/run.mjs', ...args],
      { cwd: ROOT, timeout: 150_000, maxBuffer: 16 * 2 ** 20 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe('bench/run.mjs --quick', () => {
  let dir: string;
  let run: { code: number; stdout: string; stderr: string };
  let results: BenchResults;

  beforeAll(async () => {
    expect(existsSync(join(ROOT, 'dist/cli/main.cjs')), 'build Tandem first: npm run build').toBe(
      true,
    );
    dir = mkdtempSync(join(tmpdir(), 'tandem-bench-test-'));
    run = await runBench([
      '--quick',
      '--targets',
      TARGETS.join(','),
      '--rounds',
      '1',
      '--seconds',
      '0.3',
      '--warmup',
      '0',
      '--streams',
      '20',
      '--slowstream',
      '3,50',
      '--tasks',
      '200,400',
      '--settle',
      '100',
      '--cold-starts',
      '1',
      '--list-fill',
      '200',
      '--out',
      join(dir, 'results.json'),
    ]);
    if (existsSync(join(dir, 'results.json'))) {
      results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as BenchResults;
    }
  }, 160_000);

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('finishes and writes its results', () => {
    expect(run.code, run.stderr).toBe(0);
    expect(results.mode).toBe('quick');
    expect(existsSync(join(dir, 'results.md'))).toBe(true);
  });

  it.each(TARGETS)('accepts %s: the smoke checks of bench-agent.md pass', (target) => {
    const smoke = results.targets[target]?.smoke;
    const failed = smoke?.checks.filter((c) => !c.ok) ?? [];
    expect(failed, JSON.stringify(failed, null, 2)).toEqual([]);
    expect(smoke?.ok).toBe(true);
    expect(smoke?.checks.map((c) => c.point)).toEqual([
      '1',
      '2',
      '3',
      '4',
      '4, 6',
      '4, 6',
      '5, 6',
      '5, 6',
    ]);
  });

  it.each([
    ['floor', 'grpc'],
    ['a2a-js', 'rest'],
    ['a2a-js', 'grpc'],
    ['tandem', 'rest'],
    ['tandem', 'grpc'],
  ] as const)('accepts %s over %s: the smoke checks of that binding pass', (target, binding) => {
    const smoke = results.targets[target]?.transports?.[binding];
    expect(smoke, `${target} ${binding} not checked`).toBeDefined();
    if (smoke?.unavailable !== undefined) {
      // Only Tandem's gRPC may be missing, and only from a build without `--grpc-port`.
      expect([target, binding]).toEqual(['tandem', 'grpc']);
      expect(smoke.unavailable).toContain('--grpc-port');
      return;
    }
    const failed = smoke?.checks.filter((c) => !c.ok) ?? [];
    expect(failed, JSON.stringify(failed, null, 2)).toEqual([]);
    expect(smoke?.ok).toBe(true);
  });

  it.each(Object.entries(EXPECTED))('scenario %s has a checked row per target', (id, expected) => {
    const scenario = results.scenarios.find((s) => s.id === id);
    expect(scenario, `scenario ${id} missing`).toBeDefined();
    expect(Object.keys(scenario!.summary).sort()).toEqual([...expected.targets].sort());
    for (const target of expected.targets) {
      const unavailable = id.startsWith('grpc-') ? grpcUnavailable(results, target) : undefined;
      if (unavailable !== undefined) {
        expect(scenario!.summary[target]?.unavailable).toBe(unavailable);
        expect(run.stdout).toContain(`not available — ${unavailable}`);
        continue;
      }
      const measurement = scenario!.rounds[0]?.measurements[target];
      expect(measurement?.error, `${id} on ${target}`).toBeUndefined();
      expect(measurement?.failures, `${id} on ${target}: failed answers`).toBe(0);
      expect(Number.isFinite(scenario!.summary[target]?.metrics[expected.metric])).toBe(true);
    }
    expect(run.stdout).toContain(
      `## ${/^c\d/.test(id) ? 'c.' : id === 'list' ? 'ListTasks' : `${id}.`}`,
    );
  });

  it('lists the goals of issue #6 (a miss is reported, never a test failure)', () => {
    expect(results.goals.length).toBeGreaterThan(0);
    for (const goal of results.goals) expect([true, false, null]).toContain(goal.pass);
  });
});
