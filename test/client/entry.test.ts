/**
 * The `tandem/client` entry runs in browsers: nothing it imports, directly or not, may import a
 * `node:` module. Its modules form no circle, type imports included (lint checks the others).
 * And its exports are named, never `export *`.
 */

import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'/g;

interface ModuleImports {
  /** Package and `node:` imports. */
  readonly bare: string[];
  /** Modules of src/, as absolute paths. */
  readonly local: string[];
}

/** Every module reachable from `entry` through static imports, with the imports of each. */
function importGraph(entry: string): Map<string, ModuleImports> {
  const graph = new Map<string, ModuleImports>();
  const visit = (file: string): void => {
    if (graph.has(file)) return;
    const source = readFileSync(file, 'utf8');
    const imports: ModuleImports = { bare: [], local: [] };
    graph.set(file, imports);
    for (const match of source.matchAll(IMPORT)) {
      const specifier = match[1] ?? '';
      if (specifier.startsWith('.')) {
        const local = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
        imports.local.push(local);
        visit(local);
      } else imports.bare.push(specifier);
    }
  };
  visit(entry);
  return graph;
}

/** A circle of modules, as paths relative to src/, or `undefined` when there is none. */
function findCircle(graph: Map<string, ModuleImports>): string[] | undefined {
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (file: string): string[] | undefined => {
    const at = path.indexOf(file);
    if (at !== -1) return [...path.slice(at), file].map((f) => relative(SRC, f));
    if (done.has(file)) return undefined;
    path.push(file);
    for (const next of graph.get(file)?.local ?? []) {
      const circle = visit(next);
      if (circle !== undefined) return circle;
    }
    path.pop();
    done.add(file);
    return undefined;
  };
  for (const file of graph.keys()) {
    const circle = visit(file);
    if (circle !== undefined) return circle;
  }
  return undefined;
}

describe('the tandem/client entry', () => {
  it('imports no node: module, directly or indirectly', () => {
    const graph = importGraph(resolve(SRC, 'client.ts'));
    expect(graph.size).toBeGreaterThan(10);
    const offenders = [...graph].flatMap(([file, { bare }]) =>
      bare.filter((s) => s.startsWith('node:')).map((s) => `${file}: ${s}`),
    );
    expect(offenders).toEqual([]);
    const packages = new Set([...graph.values()].flatMap(({ bare }) => bare));
    // jose (web-standard JOSE, for card signatures) is loaded only when a card is verified;
    // @opentelemetry/api (the client's spans) runs in browsers too.
    expect([...packages].sort()).toEqual(['@opentelemetry/api', 'jose', 'valibot']);
  });

  it('has no import circle, type imports included', () => {
    const graph = importGraph(resolve(SRC, 'client.ts'));
    expect(graph.has(resolve(SRC, 'client/interceptor.ts'))).toBe(true);
    expect(findCircle(graph)).toBeUndefined();
  });

  it('loads the A2A 0.3 translation only when a card needs it (dynamic imports)', () => {
    const graph = importGraph(resolve(SRC, 'client.ts'));
    const legacy = [...graph.keys()].filter((file) => file.includes('/bindings/v0_3/'));
    expect(legacy.map((file) => relative(SRC, file))).toEqual([]);
  });

  it('uses named exports only', () => {
    expect(readFileSync(resolve(SRC, 'client.ts'), 'utf8')).not.toMatch(/export \*/);
  });
});
