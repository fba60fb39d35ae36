/**
 * The runtime sees the stores through their seam only: no module of src/runtime imports anything
 * of src/stores but the types of `stores/task-store.ts` — no store, no store helper — so that a
 * store can change, or a new one plug in, without the runtime noticing.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');
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
