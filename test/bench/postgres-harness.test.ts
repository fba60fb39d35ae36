/**
 * The PostgreSQL targets of `bench/run.mjs` (Tandem on PostgreSQL and the bare `pg` floor) in
 * quick mode with the smallest parameters, when `TANDEM_TEST_POSTGRES_URL` is set: both pass the
 * smoke checks, and rows a and c10 carry their numbers, the database's side included (backends'
 * CPU, commits and statements per request, from `bench/lib/pg-sampler.mjs`). A test of the
 * harness only — it asserts nothing about speed.
 */

import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_SKIP_REASON, POSTGRES_URL } from '../support/stores.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TARGETS = ['floor-postgres', 'tandem-postgres'];

interface Results {
  targets: Record<string, { smoke?: { ok: boolean } }>;
  scenarios: {
    id: string;
    rounds: { measurements: Record<string, Record<string, unknown>> }[];
  }[];
}

describe.skipIf(POSTGRES_URL === undefined)('bench/run.mjs --quick on PostgreSQL', () => {
  let dir: string;
  let code: number;
  let stderr = '';
  let results: Results | undefined;

  beforeAll(async () => {
    expect(existsSync(join(ROOT, 'dist/cli/main.cjs')), 'build Tandem first: npm run build').toBe(
      true,
    );
    dir = mkdtempSync(join(tmpdir(), 'tandem-bench-pg-test-'));
    const args = [
      'bench/run.mjs',
      '--quick',
      '--targets',
      TARGETS.join(','),
      '--scenarios',
      'a,c10',
      '--rounds',
      '1',
      '--seconds',
      '0.5',
      '--warmup',
      '0',
      '--out',
      join(dir, 'results.json'),
    ];
    code = await new Promise((resolve) => {
      execFile(process.execPath, args, { cwd: ROOT, timeout: 120_000 }, (error, _out, err) => {
        stderr = err;
        resolve(error === null ? 0 : typeof error.code === 'number' ? error.code : -1);
      });
    });
    const file = join(dir, 'results.json');
    if (existsSync(file)) results = JSON.parse(readFileSync(file, 'utf8')) as Results;
  }, 130_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('passes the smoke checks on both targets', () => {
    expect(code, stderr).toBe(0);
    for (const target of TARGETS) expect(results?.targets[target]?.smoke?.ok, target).toBe(true);
  });

  it("measures each target's rate with the database's cost per request and per chunk", () => {
    const measured = (scenario: string, target: string): Record<string, unknown> =>
      results?.scenarios.find((s) => s.id === scenario)?.rounds[0]?.measurements[target] ?? {};
    for (const target of TARGETS) {
      const a = measured('a', target);
      for (const metric of [
        'rps',
        'dbCpuMsPerRequest',
        'commitsPerRequest',
        'statementsPerRequest',
      ]) {
        expect(Number.isFinite(a[metric]), `a ${target} ${metric}: ${String(a[metric])}`).toBe(
          true,
        );
      }
      const c = measured('c10', target);
      for (const metric of ['chunksPerSec', 'dbCpuUsPerChunk', 'writeStatementsPerChunk']) {
        expect(Number.isFinite(c[metric]), `c10 ${target} ${metric}: ${String(c[metric])}`).toBe(
          true,
        );
      }
    }
    // Tandem's SendMessage writes in batches: never more than one write statement per request.
    expect(measured('a', 'tandem-postgres').writeStatementsPerRequest).toBeLessThanOrEqual(1);
  });
});

if (POSTGRES_URL === undefined) console.warn(`[bench] ${POSTGRES_SKIP_REASON}`);
