/**
 * The TypeScript examples of README.md are the files of examples/, which `npm run typecheck`
 * compiles against the sources: this keeps the README's code compiling as the API evolves.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const readme = readFileSync(new URL('README.md', root), 'utf8');
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]);

describe('README examples', () => {
  it.each(['examples/dice-agent.ts', 'examples/call-agent.ts'])('%s appears verbatim', (file) => {
    const source = readFileSync(new URL(file, root), 'utf8');
    expect(blocks).toContain(source);
  });

  it('has no TypeScript block that is not an example file', () => {
    expect(blocks).toHaveLength(2);
  });
});
