/**
 * `lastChunk` on artifact updates, over every binding and store: an artifact written in one piece
 * (`ctx.artifact(content)`) is its own last chunk — clients such as Google ADK's wait for the flag
 * before they take an artifact as complete — while an artifact written in chunks is marked last on
 * its final chunk only, whether the agent counts its chunks itself or uses `artifactStream()`.
 */

import { expect, it } from 'vitest';
import { defineAgent } from '../../src/server.js';
import { testCard } from '../support/agents.js';
import { describeBehaviour } from '../support/behaviour-env.js';
import type { StreamEvent } from '../support/drivers/a2a-driver.js';
import { send } from '../support/messages.js';

/** Each artifact update of `events` as `text`, `+append` and `+last` as flagged. */
function artifactUpdates(events: readonly StreamEvent[]): string[] {
  return events.flatMap(({ response }) => {
    const update = response.artifactUpdate;
    if (update === undefined) return [];
    const text = update.artifact.parts.map((part) => part.text ?? '').join('');
    return [
      `${text}${update.append === true ? ' +append' : ''}${update.lastChunk === true ? ' +last' : ''}`,
    ];
  });
}

describeBehaviour('Artifact lastChunk', (env) => {
  it('marks an artifact written whole as its last chunk, and a chunked one on its final chunk only', async () => {
    const { agent } = await env.serve(
      defineAgent({
        card: testCard('Artifact writer'),
        async execute(ctx) {
          await ctx.artifact('whole', { name: 'report' });
          const id = await ctx.artifact('c0', { lastChunk: false });
          await ctx.append(id, 'c1');
          await ctx.append(id, 'c2', { lastChunk: true });
          const out = ctx.artifactStream({ name: 'streamed' });
          await out.append('s0');
          await out.append('s1');
          await out.end();
          await ctx.artifact('appended', { artifactId: id, append: true });
          await ctx.complete();
        },
      }),
    );
    const events = await (await agent.sendStreamingMessage(send('go'))).rest();
    expect(artifactUpdates(events)).toEqual([
      'whole +last',
      'c0',
      'c1 +append',
      'c2 +append +last',
      's0',
      's1 +append +last',
      'appended +append',
    ]);
  });
});
