/**
 * The files of the `tandem` command (scripts/bundle-cli.mjs): what `serve` and the client commands
 * parse at start-up, that no module is copied into two files (one class per error, so that
 * `instanceof` holds across them), and that this Node accepts the code caches the build wrote.
 * What the split is for is measured by `npm run bench` (cold start); that every part still
 * loads and works is what the other CLI tests drive.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI, ensureBuilt } from './cli-harness.js';

beforeAll(() => ensureBuilt(), 60_000);

const DIR = dirname(CLI);

/** The source modules a bundle file was built from, as paths below the project. */
function sourcesOf(file: string): string[] {
  const map = JSON.parse(readFileSync(join(DIR, `${file}.map`), 'utf8')) as { sources: string[] };
  return map.sources
    .map((source) => source.replace(/^(\.\.\/)+/, ''))
    .filter((source) => source.startsWith('src/'));
}

const bundleFiles = (): string[] => readdirSync(DIR).filter((name) => name.endsWith('.cjs'));

describe('the bundles of the tandem command', () => {
  it('start `serve` without the optional parts', () => {
    const sources = sourcesOf('serve.cjs');
    expect(sources).toContain('src/runtime/task-runtime.ts');
    const optional = [
      // gRPC's options are checked when the server is made, before the listener (and grpc-js)
      // loads: that module imports nothing.
      /^src\/bindings\/grpc\/(?!grpc-options\.ts$)/,
      /^src\/bindings\/v0_3\//,
      /^src\/stores\/(sqlite|postgres)\//,
      /^src\/agents\/(chat|orchestrator)\//,
      /^src\/agents\/(dice|translator|english-chinese-dictionary|echo|conformance)\.ts$/,
      /^src\/cli\/(schema|send|card)\.ts$/,
    ];
    expect(sources.filter((source) => optional.some((pattern) => pattern.test(source)))).toEqual(
      [],
    );
    expect(bundleFiles()).toEqual(
      expect.arrayContaining([
        'serve.bindings-grpc-grpc-listener.cjs',
        'serve.server-compat.cjs',
        'serve.stores-sqlite-sqlite-task-store.cjs',
        'serve.agents-echo.cjs',
      ]),
    );
  });

  it('start the client commands without the gRPC and 0.3 transports', () => {
    const sources = sourcesOf('client.cjs');
    expect(sources).toContain('src/cli/schema.ts');
    const transports = /^src\/bindings\/(grpc|v0_3)\/[a-z0-9-]+-client-transport\.ts$/;
    expect(sources.filter((source) => transports.test(source))).toEqual([]);
  });

  it('hold every source module in one file only', () => {
    const holders = new Map<string, string[]>();
    for (const file of bundleFiles().filter((name) => name !== 'main.cjs')) {
      const family = file.split('.')[0] ?? file;
      for (const source of sourcesOf(file)) {
        const key = `${family} ${source}`;
        holders.set(key, [...(holders.get(key) ?? []), file]);
      }
    }
    expect(holders.size).toBeGreaterThan(100);
    expect([...holders].filter(([, files]) => files.length > 1)).toEqual([]);
  });

  it('carry code caches that this Node accepts', () => {
    const loader = createRequire(import.meta.url)('../../scripts/bundle-cli-loader.cjs') as {
      compileBundle: (file: string) => { cachedDataRejected?: boolean };
    };
    for (const file of ['serve.cjs', 'client.cjs']) {
      expect(loader.compileBundle(join(DIR, file)).cachedDataRejected, file).toBe(false);
    }
  });
});
