/**
 * `send`, conversations and the output readers, against Tandem's server: a conversation keeps its
 * context and continues a task that asked for input; readers take text, data and files out of
 * tasks, messages, artifacts and parts.
 */

import { describe, expect, it } from 'vitest';
import {
  artifactsOf,
  createCardResolver,
  createClient,
  dataOf,
  filesOf,
  isTask,
  textOf,
  type Task,
} from '../../src/client.js';
import { PASS, startFaultProxy, startTandem } from './support.js';
import { createRequestHandler, defineAgent } from '../../src/server.js';

describe('send', () => {
  it('returns the final task, or the direct message', async () => {
    const { url } = await startTandem();
    const client = await createClient(url);
    const task = await client.send('stream 3');
    expect(isTask(task) && task.status.state).toBe('TASK_STATE_COMPLETED');
    // Appended chunks are parts of their own, and text parts are joined with newlines.
    expect(textOf(task)).toBe('chunk-0\nchunk-1\nchunk-2');
    const reply = await client.send([{ text: 'reply hello' }]);
    expect(isTask(reply)).toBe(false);
    expect(textOf(reply)).toBe('hello');
  });

  it('uses a blocking SendMessage when the agent does not stream', async () => {
    const agent = defineAgent({
      card: {
        name: 'No streams',
        description: 'Answers in one piece',
        skills: [{ id: 's', name: 'S', description: 'S', tags: ['s'] }],
        capabilities: { streaming: false },
      },
      async execute(ctx) {
        await ctx.artifact(`got ${ctx.text}`);
        return ctx.complete();
      },
    });
    const { url } = await startTandem([{ path: '', handler: createRequestHandler({ agent }) }]);
    const proxy = await startFaultProxy(url, () => PASS);
    const client = await createClient(proxy.url, { cardResolver: createCardResolver() });
    const task = await client.send('x', { metadata: { k: 'v' } });
    expect(textOf(task)).toBe('got x');
    expect(proxy.requests.map((r) => r.rpcMethod)).toEqual([undefined, 'SendMessage']);
    const message = (
      JSON.parse(proxy.requests[1]?.body ?? '') as {
        params: { message: { messageId: string; role: string } };
      }
    ).params.message;
    expect(message.messageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(message.role).toBe('ROLE_USER');
  });
});

describe('conversation', () => {
  it('keeps the context and continues an input-required task', async () => {
    const { url } = await startTandem();
    const client = await createClient(url);
    const conversation = client.conversation();
    const question = (await conversation.send('ask')) as Task;
    expect(question.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(textOf(question)).toBe('What is your name?');
    expect(conversation.pendingTask?.id).toBe(question.id);
    expect(conversation.contextId).toBe(question.contextId);

    const answer = (await conversation.send('Ada')) as Task;
    expect(answer.id).toBe(question.id);
    expect(answer.status.state).toBe('TASK_STATE_COMPLETED');
    expect(textOf(answer)).toBe('Hello, Ada');
    expect(artifactsOf(answer)[0]?.name).toBe('greeting');
    expect(conversation.pendingTask).toBeUndefined();

    const next = (await conversation.send('echo again')) as Task;
    expect(next.id).not.toBe(question.id);
    expect(next.contextId).toBe(question.contextId);
  });

  it('streams turns and tracks them the same way', async () => {
    const { url } = await startTandem();
    const client = await createClient(url);
    const conversation = client.conversation();
    const first: string[] = [];
    for await (const event of conversation.stream('ask')) {
      if (event.statusUpdate) first.push(event.statusUpdate.status.state);
    }
    expect(first.at(-1)).toBe('TASK_STATE_INPUT_REQUIRED');
    const pending = conversation.pendingTask?.id;
    expect(pending).toBeDefined();
    const states: string[] = [];
    for await (const event of conversation.stream('Grace')) {
      if (event.task) expect(event.task.id).toBe(pending);
      if (event.statusUpdate) states.push(event.statusUpdate.status.state);
    }
    expect(states.at(-1)).toBe('TASK_STATE_COMPLETED');
    expect(conversation.pendingTask).toBeUndefined();
  });

  it('starts in a given context', async () => {
    const { url } = await startTandem();
    const client = await createClient(url);
    const result = await client.conversation({ contextId: 'ctx-given' }).send('echo x');
    expect(result.contextId).toBe('ctx-given');
  });
});

describe('readers', () => {
  it('reads text, data and files out of a task', async () => {
    const { url } = await startTandem();
    const client = await createClient(url);
    const task = (await client.send('files')) as Task;
    expect(textOf(task)).toBe('first line\nsecond line');
    expect(dataOf(task)).toEqual([{ answer: 42 }]);
    const files = filesOf(task);
    expect(files).toHaveLength(2);
    expect(files[0]).toMatchObject({ name: 'a.txt', mediaType: 'text/plain' });
    expect(new TextDecoder().decode(files[0]?.bytes)).toBe('hello');
    expect(files[1]).toEqual({ mediaType: 'image/png', url: 'https://example.com/b.png' });
    const artifact = artifactsOf(task)[0];
    if (artifact === undefined) throw new Error('expected an artifact');
    expect(textOf(artifact)).toBe(textOf(task));
    expect(textOf(artifact.parts.slice(0, 1))).toBe('first line');
    expect(artifactsOf({ id: 't', status: { state: 'TASK_STATE_WORKING' } })).toEqual([]);
  });
});
