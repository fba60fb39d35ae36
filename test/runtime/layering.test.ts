/**
 * The folders of docs/architecture.md, held where lint cannot hold them (lint holds which folder
 * may import which, and that no module reaches itself):
 * - the runtime sees the stores through their seam only: no module of src/runtime imports
 *   anything of src/stores but the types of `stores/task-store.ts` — no store, no store helper —
 *   so that a store can change, or a new one plug in, without the runtime noticing;
 * - `src/` holds at its top only the entry points that `package.json` `exports` names;
 * - each store lives in a folder of its own below `src/stores/`, whose top holds the seams;
 * - `src/protocol/` is the wire contract: the server's HTTP exchange is not part of it;
 * - the HTTP adapters (node, Express, fetch) sit side by side in `src/http/adapters/`.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const SRC = join(ROOT, 'src');
const RUNTIME = join(SRC, 'runtime');
const IMPORT = /(?:^|\n)\s*(import|export)(\s+type)?\s[^;]*?from\s+'([^']+)'/g;

function modules(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? modules(join(directory, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(directory, entry.name)]
        : [],
  );
}

describe('src/runtime', () => {
  it('imports from src/stores only the types of the task store seam', () => {
    const offenders: string[] = [];
    let seamImports = 0;
    for (const file of modules(RUNTIME)) {
      const source = readFileSync(file, 'utf8');
      for (const [, , typeOnly, specifier = ''] of source.matchAll(IMPORT)) {
        if (!specifier.startsWith('.')) continue;
        const target = relative(SRC, resolve(dirname(file), specifier));
        if (!target.startsWith('stores')) continue;
        if (target === join('stores', 'task-store.js') && typeOnly !== undefined) seamImports++;
        else offenders.push(`${relative(SRC, file)} → ${target}`);
      }
    }
    expect(offenders).toEqual([]);
    expect(seamImports).toBeGreaterThan(5);
  });
});

describe('src/', () => {
  it('holds at its top only the entry points of package.json', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      exports: Record<string, string | { default?: string }>;
    };
    const entries = Object.values(pkg.exports)
      .flatMap((target) => (typeof target === 'string' ? [] : [target.default ?? '']))
      .filter((target) => target.startsWith('./dist/'))
      .map((target) => target.slice('./dist/'.length).replace(/\.js$/, '.ts'))
      .sort();
    const top = readdirSync(SRC, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name)
      .sort();
    expect(top).toEqual(entries);
  });

  it('keeps each store in a folder of its own, the seams at the top of src/stores', () => {
    const stores = join(SRC, 'stores');
    const folders = readdirSync(stores, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    expect(folders).toEqual(['memory', 'postgres', 'sql', 'sqlite']);
    const top = readdirSync(stores).filter((name) => name.endsWith('.ts'));
    expect(top.filter((name) => /^(memory|sqlite|postgres)-/.test(name))).toEqual([]);
  });

  it('keeps the HTTP exchange out of the wire contract', () => {
    const exchange = modules(join(SRC, 'protocol')).filter((file) =>
      /export interface (HttpRequest|HttpResponse)\b/.test(readFileSync(file, 'utf8')),
    );
    expect(exchange).toEqual([]);
  });

  it('keeps every HTTP adapter in src/http/adapters', () => {
    const adapters = readdirSync(join(SRC, 'http', 'adapters')).sort();
    expect(adapters).toEqual(['express.ts', 'fetch.ts', 'node.ts']);
  });
});
