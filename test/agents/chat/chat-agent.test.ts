/**
 * The chat agent against a fake OpenAI-compatible server on loopback, served over real HTTP and
 * called with the client: token streaming, the same artifact for SendMessage, every upstream
 * failure, cancellation reaching the model's socket, one conversation per context, the history
 * budget, and which parts it accepts.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ContentTypeNotSupportedError,
  createClient,
  createCardResolver,
  type A2AClient,
  type StreamResponse,
  type Task,
} from '../../../src/client.js';
import { createNodeServer, createRequestHandler, type A2ANodeServer } from '../../../src/server.js';
import { createChatAgent } from '../../../src/agents/chat/chat-agent.js';
import { resolveChatConfig, type ChatSettings } from '../../../src/agents/chat/chat-config.js';
import { within } from '../../support/sync.js';
import { startFakeModelServer, type FakeModelServer } from './fake-model-server.js';

const KEY = 'sk-test-0123456789abcdef';
const PNG = 'iVBORw0KGgo=';

let model: FakeModelServer;
let node: A2ANodeServer;
let base: string;
const clients = new Map<string, A2AClient>();

async function agent(path: string): Promise<A2AClient> {
  let client = clients.get(path);
  if (client === undefined) {
    client = await createClient(`${base}${path}`, { cardResolver: createCardResolver() });
    clients.set(path, client);
  }
  return client;
}

/** The text of a task's answer: its artifact's chunks, joined as they were streamed. */
function answerOf(task: Task): string {
  return (task.artifacts ?? []).flatMap((a) => a.parts.map((p) => p.text ?? '')).join('');
}

function reasonOf(task: Task): string {
  return task.status.message?.parts.map((p) => p.text ?? '').join('') ?? '';
}

async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

beforeAll(async () => {
  model = await startFakeModelServer();
  const refused = await startFakeModelServer();
  const refusedUrl = refused.baseUrl;
  await refused.close();
  const mount = (path: string, settings: ChatSettings) => ({
    path,
    handler: createRequestHandler({
      agent: createChatAgent(resolveChatConfig({ model: 'm', ...settings }), { apiKey: KEY }),
      agentName: path,
    }),
  });
  node = createNodeServer({
    agents: [
      mount('/chat', {
        modelUrl: model.baseUrl,
        systemPrompt: 'Be brief.',
        temperature: 0.2,
        maxTokens: 64,
      }),
      mount('/whole', { modelUrl: model.baseUrl, stream: false }),
      mount('/quick', { modelUrl: model.baseUrl, timeoutMs: 200 }),
      mount('/short', { modelUrl: model.baseUrl, history: { maxTurns: 2 } }),
      mount('/tokens', { modelUrl: model.baseUrl, history: { maxTokens: 15 } }),
      mount('/vision', { modelUrl: model.baseUrl, images: true }),
      mount('/down', { modelUrl: refusedUrl }),
    ],
    authenticate: ({ headers }) =>
      headers.get('authorization') === 'Bearer bob-token-0123456789'
        ? { id: 'bob', anonymous: false }
        : { id: 'anonymous', anonymous: true },
  });
  base = (await node.listen({ port: 0, host: '127.0.0.1' })).url.replace(/\/$/, '');
});

afterAll(async () => {
  await node.shutdown({ deadlineMs: 1_000 });
  await model.close();
});

describe('the chat agent', () => {
  it('streams the tokens as chunks of one artifact, and sends the key as Bearer only', async () => {
    const chat = await agent('/chat');
    const next = model.requests.length;
    const events = await collect(
      chat.sendStreamingMessage({ message: { parts: [{ text: 'hello there' }] } }),
    );
    const updates = events.flatMap((e) =>
      e.artifactUpdate === undefined ? [] : [e.artifactUpdate],
    );
    expect(updates.length).toBe(5); // "echo: ", "hello ", "there ", "(turns ", "0)"
    expect(updates.map((u) => u.artifact.parts[0]?.text).join('')).toBe(
      'echo: hello there (turns 0)',
    );
    expect(updates[0]?.append).toBeUndefined();
    expect(updates[0]?.artifact.name).toBe('answer');
    expect(updates.slice(1).every((u) => u.append === true)).toBe(true);
    expect(new Set(updates.map((u) => u.artifact.artifactId)).size).toBe(1);
    expect(updates.at(-1)?.lastChunk).toBe(true);
    expect(events.at(-1)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');

    const request = model.requests[next];
    expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request?.body).toMatchObject({
      model: 'm',
      stream: true,
      temperature: 0.2,
      max_tokens: 64,
    });
    expect(request?.body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hello there' },
    ]);
  });

  it('builds the same artifact for SendMessage', async () => {
    const task = (await (await agent('/chat')).send('hello there')) as Task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts).toHaveLength(1);
    expect(task.artifacts?.[0]?.name).toBe('answer');
    expect(answerOf(task)).toBe('echo: hello there (turns 0)');
  });

  it('asks for one whole answer when streaming from the model is off', async () => {
    const next = model.requests.length;
    const task = (await (await agent('/whole')).send('hi')) as Task;
    expect(model.requests[next]?.body.stream).toBe(false);
    expect(answerOf(task)).toBe('echo: hi (turns 0)');
  });

  it('relays slow tokens in order as they come', async () => {
    const events = await collect(
      (await agent('/chat')).sendStreamingMessage({ message: { parts: [{ text: 'slow 12' }] } }),
    );
    const chunks = events.flatMap((e) => e.artifactUpdate?.artifact.parts.map((p) => p.text) ?? []);
    expect(chunks).toEqual(Array.from({ length: 12 }, (_, i) => `t${i} `));
  });

  const failures: [string, string, RegExp][] = [
    [
      '/chat',
      'status 401',
      /^The model server refused the request \(HTTP 401\): check the API key in TANDEM_MODEL_API_KEY$/,
    ],
    ['/chat', 'status 403', /HTTP 403/],
    [
      '/chat',
      'status 404',
      /^The model server does not know this model or endpoint \(HTTP 404\): Bad things with key \[redacted\] at \[url\] and \[redacted\]$/,
    ],
    ['/chat', 'status 400', /^The model server refused the request \(HTTP 400\): /],
    ['/chat', 'status 429', /^The model server is rate limiting requests \(HTTP 429\)/],
    ['/chat', 'status 500', /^The model server failed \(HTTP 500\)$/],
    ['/chat', 'status 503', /^The model server failed \(HTTP 503\)$/],
    ['/quick', 'hang', /^The model server did not answer within 0.2s$/],
    ['/quick', 'gate', /^The model stopped sending for 0.2s in the middle of its answer$/],
    ['/chat', 'cut', /^The model server closed the connection before the answer was complete$/],
    ['/chat', 'stop', /^The model stopped its stream before the answer was complete$/],
    ['/chat', 'garbage', /^The model server sent a malformed stream chunk \(not JSON\)$/],
    [
      '/chat',
      'fail-mid',
      /^The model failed in the middle of its answer: the GPU at \[url\] melted$/,
    ],
    ['/down', 'anything', /^The model server refused the connection; is it running\?$/],
  ];

  it.each(failures)('%s "%s" fails the task with a safe reason', async (path, text, reason) => {
    const task = (await (await agent(path)).send(text)) as Task;
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    const shown = reasonOf(task);
    expect(shown).toMatch(reason);
    const everything = JSON.stringify(task);
    for (const secret of [KEY, 'sk-abc', '127.0.0.1', '10.0.0.7', 'http://', '/internal']) {
      expect(everything).not.toContain(secret);
    }
  });

  it('completes an answer cut at the token limit, and says so', async () => {
    const task = (await (await agent('/chat')).send('long')) as Task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answerOf(task)).toBe('and so on');
    expect(reasonOf(task)).toBe('The answer was cut short at the token limit (maxTokens).');
  });

  it('keeps its status notes out of the conversation', async () => {
    const talk = (await agent('/chat')).conversation();
    await talk.send('long');
    const next = model.requests.length;
    await talk.send('go on');
    expect(model.requests[next]?.body.messages.slice(1)).toEqual([
      { role: 'user', content: 'long' },
      { role: 'assistant', content: 'and so on' },
      { role: 'user', content: 'go on' },
    ]);
  });

  it('keeps what the model said before a stream broke', async () => {
    const task = (await (await agent('/chat')).send('stop')) as Task;
    expect(answerOf(task)).toBe('one two ');
    expect(task.artifacts?.[0]?.parts).toHaveLength(2);
  });

  it('aborts the model request at once on CancelTask: its socket closes', async () => {
    const chat = await agent('/chat');
    const next = model.requests.length;
    const stream = chat.sendStreamingMessage({ message: { parts: [{ text: 'gate' }] } });
    let taskId = '';
    let canceled = false;
    for await (const event of stream) {
      taskId ||= event.task?.id ?? event.statusUpdate?.taskId ?? '';
      if (event.statusUpdate?.status.state === 'TASK_STATE_WORKING' && !canceled) {
        canceled = true;
        // The model has sent its first token and waits behind the gate.
        const request = await model.request(next);
        const task = await chat.cancelTask({ id: taskId });
        expect(task.status.state).toBe('TASK_STATE_CANCELED');
        // The gate is still closed: only the agent's abort can close this socket.
        expect(await within(request.closed, 2_000, 'the model request to be aborted')).toBe(true);
      }
      if (event.statusUpdate?.status.state === 'TASK_STATE_CANCELED') break;
    }
    expect(canceled).toBe(true);
    const task = await chat.getTask({ id: taskId });
    expect(task.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('keeps each context its own conversation', async () => {
    const chat = await agent('/chat');
    const a = chat.conversation();
    const b = chat.conversation();
    expect(answerOf((await a.send('alpha one')) as Task)).toBe('echo: alpha one (turns 0)');
    expect(answerOf((await b.send('beta one')) as Task)).toBe('echo: beta one (turns 0)');
    const next = model.requests.length;
    expect(answerOf((await a.send('alpha two')) as Task)).toBe('echo: alpha two (turns 1)');
    expect(model.requests[next]?.body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'alpha one' },
      { role: 'assistant', content: 'echo: alpha one (turns 0)' },
      { role: 'user', content: 'alpha two' },
    ]);
    expect(answerOf((await b.send('beta two')) as Task)).toBe('echo: beta two (turns 1)');
    expect(JSON.stringify(model.requests.at(-1)?.body.messages)).not.toContain('alpha');
  });

  it('never shows one caller’s conversation to another, even given its contextId', async () => {
    const mine = (await agent('/chat')).conversation();
    await mine.send('my secret plan');
    const bob = await createClient(`${base}/chat`, {
      cardResolver: createCardResolver(),
      auth: { bearerToken: 'bob-token-0123456789' },
    });
    const next = model.requests.length;
    const theirs = bob.conversation({ contextId: mine.contextId as string });
    expect(answerOf((await theirs.send('what was the plan?')) as Task)).toBe(
      'echo: what was the plan? (turns 0)',
    );
    expect(JSON.stringify(model.requests[next]?.body.messages)).not.toContain('secret');
  });

  it('leaves failed exchanges out of the conversation', async () => {
    const talk = (await agent('/chat')).conversation();
    await talk.send('first');
    await talk.send('status 500');
    expect(answerOf((await talk.send('third')) as Task)).toBe('echo: third (turns 1)');
  });

  it('drops the oldest exchanges first past the turn budget', async () => {
    const talk = (await agent('/short')).conversation();
    for (const text of ['m1', 'm2', 'm3']) await talk.send(text);
    const next = model.requests.length;
    await talk.send('m4');
    const users = model.requests[next]?.body.messages.filter((m) => m.role === 'user');
    expect(users?.map((m) => m.content)).toEqual(['m2', 'm3', 'm4']);
  });

  it('drops the oldest exchanges first past the token budget', async () => {
    // Each exchange is about 1 + 5 tokens: a budget of 15 keeps two of them.
    const talk = (await agent('/tokens')).conversation();
    for (const text of ['q1', 'q2', 'q3']) await talk.send(text);
    const next = model.requests.length;
    await talk.send('q4');
    const users = model.requests[next]?.body.messages.filter((m) => m.role === 'user');
    expect(users?.map((m) => m.content)).toEqual(['q2', 'q3', 'q4']);
  });

  it('passes images on as image_url parts when the model reads images', async () => {
    const vision = await agent('/vision');
    expect(vision.card.defaultInputModes).toEqual([
      'text/plain',
      'image/png',
      'image/jpeg',
      'image/gif',
      'image/webp',
    ]);
    const next = model.requests.length;
    const task = (await vision.send([
      { text: 'what is this?' },
      { raw: PNG, mediaType: 'image/png', filename: 'a.png' },
      { url: 'https://example.com/cat.jpg', mediaType: 'image/jpeg' },
    ])) as Task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(model.requests[next]?.body.messages.at(-1)?.content).toEqual([
      { type: 'text', text: 'what is this?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
      { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
    ]);
  });

  it('refuses parts the model cannot read with ContentTypeNotSupportedError, creating no task', async () => {
    const chat = await agent('/chat');
    expect(chat.card.defaultInputModes).toEqual(['text/plain']);
    expect(chat.card.defaultOutputModes).toEqual(['text/plain']);
    const before = (await chat.listTasks({})).totalSize;
    const refusals: [Parameters<A2AClient['send']>[0], RegExp][] = [
      [[{ data: { a: 1 } }], /parts\[0\] is structured data \(application\/json\)/],
      [
        [{ text: 'look' }, { raw: PNG, mediaType: 'image/png' }],
        /parts\[1\] has media type image\/png/,
      ],
      [[{ url: 'https://example.com/x' }], /parts\[0\] is a file without a media type/],
    ];
    for (const [parts, message] of refusals) {
      const error = await chat.send(parts).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(ContentTypeNotSupportedError);
      expect((error as Error).message).toMatch(message);
    }
    const vision = await agent('/vision');
    const pdf = await vision
      .send([{ raw: PNG, mediaType: 'application/pdf' }])
      .catch((e: unknown) => e);
    expect(pdf).toBeInstanceOf(ContentTypeNotSupportedError);
    expect((pdf as Error).message).toContain('application/pdf');
    expect((await chat.listTasks({})).totalSize).toBe(before);
  });

  it('shows neither the key nor the model URL on its card', async () => {
    const card = JSON.stringify((await agent('/chat')).card);
    expect(card).not.toContain(KEY);
    expect(card).not.toContain(model.baseUrl);
    expect(card).not.toContain(new URL(model.baseUrl).port);
  });
});
