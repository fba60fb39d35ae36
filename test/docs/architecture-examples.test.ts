/**
 * The worked examples of docs/architecture.md that are files of examples/, which `npm run
 * typecheck` compiles against the sources: the interceptor the architecture guide shows keeps
 * compiling as the API evolves.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const guide = readFileSync(new URL('docs/architecture.md', root), 'utf8');
const blocks = [...guide.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]);

describe('docs/architecture.md examples', () => {
  it.each(['examples/timing-interceptor.ts'])('%s appears verbatim', (file) => {
    expect(blocks).toContain(readFileSync(new URL(file, root), 'utf8'));
  });
});
