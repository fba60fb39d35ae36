/**
 * The TypeScript examples of docs/deploy.md are files of examples/, which `npm run typecheck`
 * compiles against the sources: the store code the deployment guide shows keeps compiling as the
 * API evolves.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const guide = readFileSync(new URL('docs/deploy.md', root), 'utf8');
const blocks = [...guide.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]);
const EXAMPLES = ['examples/sqlite-server.ts', 'examples/postgres-replica.ts'];

describe('docs/deploy.md examples', () => {
  it.each(EXAMPLES)('%s appears verbatim', (file) => {
    expect(blocks).toContain(readFileSync(new URL(file, root), 'utf8'));
  });

  it('has no TypeScript block that is not an example file', () => {
    expect(blocks).toHaveLength(EXAMPLES.length);
  });
});
