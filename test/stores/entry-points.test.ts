/**
 * The store entry points: `tandem/server` and `tandem/stores` load no database driver — the SQLite and PostgreSQL
 * stores have entry points of their own (`tandem/stores/sqlite`, `tandem/stores/postgres`), and
 * `openTaskStore` imports a store module only when one is chosen — and each entry point exports
 * its store by name.
 */

import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PostgresTaskStore } from '../../src/stores-postgres.js';
import { DEFAULT_CHECKPOINT_PAGES, SqliteTaskStore } from '../../src/stores-sqlite.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = resolve(ROOT, 'src');
/** Static imports and re-exports; `import()` expressions are lazy and not followed. */
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'/g;

/** The packages the modules reachable from `entry` import, directly or not. */
function packagesReachedFrom(entry: string): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const specifier = match[1] ?? '';
      if (specifier.startsWith('.')) {
        visit(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      } else packages.add(specifier);
    }
  };
  visit(resolve(SRC, entry));
  return packages;
}

describe('store entry points', () => {
  it('keep tandem/server and tandem/stores free of database drivers', () => {
    for (const entry of ['server.ts', 'stores.ts']) {
      const packages = packagesReachedFrom(entry);
      expect(packages.has('better-sqlite3'), entry).toBe(false);
      expect(packages.has('pg'), entry).toBe(false);
    }
  });

  it('load each driver from its own entry point', () => {
    expect(packagesReachedFrom('stores-sqlite.ts').has('better-sqlite3')).toBe(true);
    expect(packagesReachedFrom('stores-postgres.ts').has('pg')).toBe(true);
    expect(typeof SqliteTaskStore.open).toBe('function');
    expect(typeof PostgresTaskStore.open).toBe('function');
    expect(DEFAULT_CHECKPOINT_PAGES).toBe(10_000);
  });

  it('are package subpaths, with named exports only', () => {
    const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as {
      exports: Record<string, { default?: string }>;
    };
    expect(pkg.exports['./stores/sqlite']?.default).toBe('./dist/stores-sqlite.js');
    expect(pkg.exports['./stores/postgres']?.default).toBe('./dist/stores-postgres.js');
    for (const entry of ['stores-sqlite.ts', 'stores-postgres.ts']) {
      expect(readFileSync(resolve(SRC, entry), 'utf8')).not.toMatch(/export \*/);
    }
  });
});
