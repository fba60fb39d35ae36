/**
 * The agent's context as an API, through a request handler on the memory store: a plain object
 * with nothing of the runtime behind it; the end of an execution's turn after it asked for input
 * or authorization; artifacts streamed chunk by chunk without bookkeeping; the request metadata.
 */

import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/protocol/local-errors.js';
import type { Message, StreamResponse } from '../../src/protocol/generated/types.js';
import {
  createCallContext,
  createRequestHandler,
  defineAgent,
  type AgentContext,
  type AgentExecute,
  type StreamEvent,
} from '../../src/server.js';

const call = createCallContext();

function agentDoing(execute: AgentExecute) {
  return defineAgent({
    card: {
      name: 'Context test',
      description: 'Does what the test says',
      skills: [{ id: 's', name: 'S', description: 'S', tags: ['test'] }],
    },
    execute,
  });
}

function userText(text: string, taskId?: string): { message: Message } {
  const message: Message = { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] };
  if (taskId !== undefined) message.taskId = taskId;
  return { message };
}

async function streamed(execute: AgentExecute): Promise<StreamResponse[]> {
  const handler = createRequestHandler({ agent: agentDoing(execute) });
  const events: StreamEvent[] = [];
  for await (const event of await handler.sendStreamingMessage(call, userText('go'))) {
    events.push(event);
  }
  return events.map((event) => event.payload);
}

function artifactUpdates(payloads: readonly StreamResponse[]) {
  return payloads.flatMap((p) => (p.artifactUpdate === undefined ? [] : [p.artifactUpdate]));
}

describe('AgentContext', () => {
  it('is a plain object: the execution and its run are out of reach', async () => {
    let seen: AgentContext | undefined;
    const handler = createRequestHandler({
      agent: agentDoing((ctx) => {
        seen = ctx;
      }),
    });
    await handler.sendMessage(call, userText('go'));
    expect(seen).toBeDefined();
    expect('run' in (seen as object)).toBe(false);
    expect(Object.keys(seen as object)).not.toContain('run');
    expect((seen as unknown as Record<string, unknown>)['execution']).toBeUndefined();
  });

  describe('after inputRequired()', () => {
    it('refuses a further change with a UsageError: a forgotten return completes nothing', async () => {
      let refusal: unknown;
      const handler = createRequestHandler({
        agent: agentDoing(async (ctx) => {
          void ctx.inputRequired('Which one?');
          refusal = await ctx.complete('done').catch((error: unknown) => error);
        }),
      });
      const { task } = await handler.sendMessage(call, userText('go'));
      expect(task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      await handler.shutdown({ deadlineMs: 1_000 });
      expect(refusal).toBeInstanceOf(UsageError);
      expect((refusal as Error).message).toMatch(/its turn is over/);
      const stored = await handler.getTask(call, { id: task?.id ?? '' });
      expect(stored.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    });

    it('refuses artifacts, progress and failures alike, and returning leaves the task waiting', async () => {
      const refused: string[] = [];
      const handler = createRequestHandler({
        agent: agentDoing(async (ctx) => {
          await ctx.authRequired('Sign in first');
          for (const attempt of [
            () => ctx.artifact('late'),
            () => ctx.working('still here'),
            () => ctx.fail('oops'),
            () => ctx.artifactStream().end('late chunk'),
          ]) {
            await attempt().catch((error: unknown) => {
              if (error instanceof UsageError) refused.push('refused');
            });
          }
        }),
      });
      const { task } = await handler.sendMessage(call, userText('go'));
      // The client has its answer once the task waits; the agent then returns.
      await handler.shutdown({ deadlineMs: 1_000 });
      expect(refused).toEqual(['refused', 'refused', 'refused', 'refused']);
      const stored = await handler.getTask(call, { id: task?.id ?? '' });
      expect(stored.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
      expect(stored.artifacts ?? []).toEqual([]);
    });

    it('leaves the task waiting for the client when the agent throws afterwards', async () => {
      const handler = createRequestHandler({
        agent: agentDoing(async (ctx) => {
          await ctx.inputRequired('Which one?');
          throw new Error('after asking');
        }),
      });
      const { task } = await handler.sendMessage(call, userText('go'));
      await handler.shutdown({ deadlineMs: 1_000 });
      const stored = await handler.getTask(call, { id: task?.id ?? '' });
      expect(stored.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    });

    it('lets the next message continue the task in a new execution', async () => {
      const handler = createRequestHandler({
        agent: agentDoing((ctx) =>
          ctx.task === undefined
            ? ctx.inputRequired('Which one?')
            : ctx.complete(`got ${ctx.text}`),
        ),
      });
      const { task } = await handler.sendMessage(call, userText('go'));
      const next = await handler.sendMessage(call, userText('this one', task?.id));
      expect(next.task?.status.state).toBe('TASK_STATE_COMPLETED');
    });
  });

  describe('artifactStream()', () => {
    it('creates the artifact with the first chunk, appends the others and marks the last', async () => {
      const payloads = await streamed(async (ctx) => {
        const out = ctx.artifactStream({ name: 'answer', metadata: { model: 'm' } });
        for (const token of ['a', 'b', 'c']) await out.append(token);
        await out.end();
      });
      const updates = artifactUpdates(payloads);
      expect(updates.map((u) => [u.artifact.parts[0]?.text, u.append, u.lastChunk])).toEqual([
        ['a', undefined, undefined],
        ['b', true, undefined],
        ['c', true, true],
      ]);
      expect(new Set(updates.map((u) => u.artifact.artifactId)).size).toBe(1);
      expect(updates[0]?.artifact.name).toBe('answer');
      expect(updates[0]?.artifact.metadata).toEqual({ model: 'm' });
      expect(updates[1]?.artifact.name).toBeUndefined();
    });

    it('writes a last chunk given to end() after the one it held back', async () => {
      const payloads = await streamed(async (ctx) => {
        const out = ctx.artifactStream();
        await out.append('a');
        await out.end('z');
      });
      const updates = artifactUpdates(payloads);
      expect(updates.map((u) => [u.artifact.parts[0]?.text, u.append, u.lastChunk])).toEqual([
        ['a', undefined, undefined],
        ['z', true, true],
      ]);
    });

    it('writes a single chunk as first and last, and nothing for a stream without chunks', async () => {
      const payloads = await streamed(async (ctx) => {
        await ctx.artifactStream().end();
        const out = ctx.artifactStream();
        await out.append('only');
        await out.end();
      });
      const updates = artifactUpdates(payloads);
      expect(updates.map((u) => [u.artifact.parts[0]?.text, u.append, u.lastChunk])).toEqual([
        ['only', undefined, true],
      ]);
    });

    it('appends from the first chunk when asked to continue an artifact', async () => {
      const payloads = await streamed(async (ctx) => {
        const out = ctx.artifactStream({ artifactId: 'kept', append: true });
        await out.append('more');
        await out.end();
      });
      const [update] = artifactUpdates(payloads);
      expect(update?.append).toBe(true);
      expect(update?.lastChunk).toBe(true);
      expect(update?.artifact.artifactId).toBe('kept');
    });

    it('refuses appending after the end, and invalid content at once', async () => {
      const errors: unknown[] = [];
      await streamed(async (ctx) => {
        const out = ctx.artifactStream();
        await out.append('a');
        errors.push(await out.append([]).catch((error: unknown) => error));
        await out.end();
        errors.push(await out.append('b').catch((error: unknown) => error));
        errors.push(await out.end().catch((error: unknown) => error));
      });
      expect(errors.map((e) => e instanceof UsageError)).toEqual([true, true, true]);
      expect((errors[1] as Error).message).toMatch(/after end\(\)/);
    });
  });

  it('gives the request metadata as metadata', async () => {
    let seen: unknown;
    const handler = createRequestHandler({
      agent: agentDoing((ctx) => {
        seen = ctx.metadata;
      }),
    });
    await handler.sendMessage(call, { ...userText('go'), metadata: { trace: 't-1' } });
    expect(seen).toEqual({ trace: 't-1' });
  });
});
