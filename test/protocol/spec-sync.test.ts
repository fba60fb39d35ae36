/**
 * The vendored spec (spec/) must equal the team's reference copy in ../shared/spec/ next to the
 * checkout, so that generation and spec-driven tests never run against a stale proto. A clean
 * clone without that folder skips this file and says so.
 */

import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it, expect } from 'vitest';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const sharedDir = resolve(repoRoot, '..', 'shared', 'spec');
const vendored = (name: string): string => join(repoRoot, 'spec', name);
const shared = (name: string): string => join(sharedDir, name);

/** The 1-based number of the first line that differs, for a readable failure. */
function firstDifferentLine(a: string, b: string): number {
  const left = a.split('\n');
  const right = b.split('\n');
  let i = 0;
  while (i < left.length && i < right.length && left[i] === right[i]) i++;
  return i + 1;
}

const FILES = ['a2a.proto', 'specification.md', 'a2a.schema.json', 'v0.3/a2a.proto'];
const hasShared = existsSync(sharedDir);

if (!hasShared) {
  console.warn(
    `spec-sync: skipped, ${sharedDir} does not exist; the vendored spec/ could not be compared ` +
      'with the reference copy.',
  );
}

describe.skipIf(!hasShared)(`spec/ equals ${sharedDir}`, () => {
  it.each(FILES)('spec/%s is identical to the reference copy', (name) => {
    expect(existsSync(shared(name)), `${shared(name)} is missing`).toBe(true);
    const ours = readFileSync(vendored(name), 'utf8');
    const theirs = readFileSync(shared(name), 'utf8');
    // A boolean with a pointer to the first difference: a diff of a 150 kB file is unreadable.
    const where = ours === theirs ? 0 : firstDifferentLine(ours, theirs);
    expect(
      ours === theirs,
      `spec/${name} differs from ${shared(name)} from line ${where}; copy the reference file ` +
        'into spec/ and run npm run generate',
    ).toBe(true);
  });
});

describe('spec/', () => {
  it.each(FILES)('holds a non-empty vendored %s', (name) => {
    expect(readFileSync(vendored(name), 'utf8').length).toBeGreaterThan(1000);
  });
});
