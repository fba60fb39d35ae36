/**
 * The `tandem/client` entry runs in browsers: nothing it imports, directly or not, may import a
 * `node:` module. And its exports are named, never `export *`.
 */

import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'/g;

/** Every module reachable from `entry`, with the bare imports of each. */
function importGraph(entry: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const visit = (file: string): void => {
    if (graph.has(file)) return;
    const source = readFileSync(file, 'utf8');
    const bare: string[] = [];
    graph.set(file, bare);
    for (const match of source.matchAll(IMPORT)) {
      const specifier = match[1] ?? '';
      if (specifier.startsWith('.'))
        visit(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else bare.push(specifier);
    }
  };
  visit(entry);
  return graph;
}

describe('the tandem/client entry', () => {
  it('imports no node: module, directly or indirectly', () => {
    const graph = importGraph(resolve(SRC, 'client.ts'));
    expect(graph.size).toBeGreaterThan(10);
    const offenders = [...graph].flatMap(([file, bare]) =>
      bare.filter((s) => s.startsWith('node:')).map((s) => `${file}: ${s}`),
    );
    expect(offenders).toEqual([]);
    const packages = new Set([...graph.values()].flat());
    expect([...packages].sort()).toEqual(['valibot']);
  });

  it('uses named exports only', () => {
    expect(readFileSync(resolve(SRC, 'client.ts'), 'utf8')).not.toMatch(/export \*/);
  });
});
