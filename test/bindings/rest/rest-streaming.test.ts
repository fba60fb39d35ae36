/**
 * Event streams of the HTTP+JSON binding (spec 11.7): SSE whose `data:` is a bare
 * `StreamResponse` and whose `id:` is the event's sequence number, ending after the final event;
 * resuming with `Last-Event-ID` on `:subscribe` (the next event, no gap, no duplicate); invalid
 * resume positions; subscribing to a finished task; and a client that goes away.
 */

import { describe, expect, it } from 'vitest';
import {
  createTask,
  describePayload,
  expectA2AError,
  expectInvalidParams,
  freshName,
  get,
  payloadOf,
  post,
  readSse,
  sendBody,
  signal,
  sseEvents,
  useRestServer,
  VERSION,
  type SseEvent,
  type WireTask,
} from './support.js';

const server = useRestServer();

/** The events of `stream 3` and `gate <name> 3`, uninterrupted. */
const THREE_CHUNKS = [
  'task:TASK_STATE_SUBMITTED',
  'status:TASK_STATE_WORKING',
  'artifact:chunk-0',
  'artifact:chunk-1+append',
  'artifact:chunk-2+append',
  'status:TASK_STATE_COMPLETED',
];

/** Streams `text` and reads it to its end. */
async function streamAll(text: string): Promise<SseEvent[]> {
  const response = await post(`${server.base}/message:stream`, sendBody(text));
  expect(response.status).toBe(200);
  return readSse(response);
}

function subscribe(taskId: string, headers: Record<string, string> = {}, method = 'GET') {
  return fetch(`${server.base}/tasks/${taskId}:subscribe`, {
    method,
    headers: { ...VERSION, ...headers },
  });
}

/** Reads the first `count` events of a stream, then hangs up. */
async function readThenHangUp(
  url: string,
  body: unknown,
  count: number,
): Promise<{ events: SseEvent[]; controller: AbortController }> {
  const controller = new AbortController();
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...VERSION, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  const events: SseEvent[] = [];
  for await (const event of sseEvents(response)) {
    events.push(event);
    if (events.length === count) break;
  }
  controller.abort();
  return { events, controller };
}

function taskIdOf(event: SseEvent | undefined): string {
  const id = payloadOf(event as SseEvent).task?.id;
  expect(id).toBeDefined();
  return id as string;
}

/** Resolves when the server logged the end of the stream it answered for `taskId` at `path`. */
function streamEnded(path: string, taskId: string): Promise<unknown> {
  return server.logger.next(
    (line) =>
      line.message === 'request' &&
      line.context.path === `/agents/test${path}` &&
      line.context.taskId === taskId,
  );
}

describe('stream framing', () => {
  it('sends bare StreamResponses with ids 1..n, then ends after the final event', async () => {
    const events = await streamAll('stream 3');
    expect(events.map((event) => describePayload(payloadOf(event)))).toEqual(THREE_CHUNKS);
    expect(events.map((event) => event.id)).toEqual(['1', '2', '3', '4', '5', '6']);
    for (const event of events) expect(event.event ?? 'message').toBe('message');
    const taskId = taskIdOf(events[0]);
    for (const event of events.slice(1)) {
      const payload = payloadOf(event);
      expect(payload.statusUpdate?.taskId ?? payload.artifactUpdate?.taskId).toBe(taskId);
    }
  });

  it('writes each event as one id line and one data line', async () => {
    const response = await post(`${server.base}/message:stream`, sendBody('echo framed'));
    const text = await response.text();
    const frames = text.split('\n\n').filter((frame) => frame !== '');
    expect(frames.length).toBe(3);
    frames.forEach((frame, index) => {
      const lines = frame.split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toBe(`id: ${index + 1}`);
      expect(lines[1]).toMatch(/^data: \{"(task|statusUpdate|artifactUpdate)":/);
    });
    expect(text.endsWith('\n\n')).toBe(true);
  });

  it('ends a stream at an interrupted state (INPUT_REQUIRED)', async () => {
    const events = await streamAll('ask');
    expect(events.map((event) => describePayload(payloadOf(event)))).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_INPUT_REQUIRED',
    ]);
  });

  it('sends a direct message as one event without an id', async () => {
    const events = await streamAll('reply hello');
    expect(events).toHaveLength(1);
    expect(events[0]?.id ?? '').toBe('');
    expect(payloadOf(events[0] as SseEvent).message).toMatchObject({
      role: 'ROLE_AGENT',
      parts: [{ text: 'hello' }],
    });
  });

  it('starts :subscribe with the current Task, its id the task’s last event', async () => {
    const go = freshName();
    const first = await post(`${server.base}/message:stream`, sendBody(`gate ${go} 1`));
    const iterator = sseEvents(first)[Symbol.asyncIterator]();
    const created = (await iterator.next()).value as SseEvent;
    const working = (await iterator.next()).value as SseEvent;
    expect(describePayload(payloadOf(working))).toBe('status:TASK_STATE_WORKING');
    const taskId = taskIdOf(created);
    const response = await subscribe(taskId);
    expect(response.status).toBe(200);
    const pending = readSse(response);
    signal(go).resolve();
    const events = await pending;
    expect(events.map((event) => describePayload(payloadOf(event)))).toEqual([
      'task:TASK_STATE_WORKING',
      'artifact:chunk-0',
      'status:TASK_STATE_COMPLETED',
    ]);
    expect(events.map((event) => event.id)).toEqual(['2', '3', '4']);
    await iterator.return?.(undefined);
  });
});

describe('resume with Last-Event-ID', () => {
  it.each([1, 2])(
    'resumes a live stream cut after %i events at the next one, no gap, no duplicate',
    async (cut) => {
      const go = freshName();
      const { events: before } = await readThenHangUp(
        `${server.base}/message:stream`,
        sendBody(`gate ${go} 3`),
        cut,
      );
      const taskId = taskIdOf(before[0]);
      const lastId = before.at(-1)?.id as string;
      expect(lastId).toBe(String(cut));
      const response = await subscribe(taskId, { 'last-event-id': lastId });
      expect(response.status).toBe(200);
      const pending = readSse(response);
      signal(go).resolve();
      const after = await pending;
      expect(after[0]?.id).toBe(String(cut + 1));
      const all = [...before, ...after];
      expect(all.map((event) => event.id)).toEqual(['1', '2', '3', '4', '5', '6']);
      expect(all.map((event) => describePayload(payloadOf(event)))).toEqual(THREE_CHUNKS);
    },
  );

  it('replays a finished task from any position, with the very frames sent the first time', async () => {
    const original = await streamAll('stream 3');
    const taskId = taskIdOf(original[0]);
    for (let n = 0; n < original.length; n++) {
      for (const method of ['GET', 'POST']) {
        const response = await subscribe(taskId, { 'last-event-id': String(n) }, method);
        expect(response.status, `${method} Last-Event-ID ${n}`).toBe(200);
        const replayed = await readSse(response);
        expect(
          replayed.map((event) => [event.id, event.data]),
          `${method} Last-Event-ID ${n}`,
        ).toEqual(original.slice(n).map((event) => [event.id, event.data]));
      }
    }
  });

  it('answers an empty stream that ends at once when the client has seen the last event', async () => {
    const original = await streamAll('echo end');
    const response = await subscribe(taskIdOf(original[0]), {
      'last-event-id': String(original.length),
    });
    expect(response.status).toBe(200);
    expect(await readSse(response)).toEqual([]);
  });

  it.each(['abc', '-1', '1.5', '0x2', '1 2', '9999999999999999'])(
    'refuses Last-Event-ID: %s with 400 naming Last-Event-ID',
    async (value) => {
      const task = await createTask(server.base, 'ask');
      const response = await subscribe(task.id, { 'last-event-id': value });
      expect(await expectInvalidParams(response)).toEqual(['Last-Event-ID']);
    },
  );

  it('refuses a Last-Event-ID past the task’s last event with 400 naming it', async () => {
    const original = await streamAll('echo past');
    const response = await subscribe(taskIdOf(original[0]), {
      'last-event-id': String(original.length + 1),
    });
    expect(await expectInvalidParams(response)).toEqual(['Last-Event-ID']);
  });

  it('answers TaskNotFound, not a stream, for an unknown task with Last-Event-ID', async () => {
    const response = await subscribe('no-such-task', { 'last-event-id': '1' });
    await expectA2AError(response, 404, 'TASK_NOT_FOUND');
  });
});

describe('subscribing to a finished task', () => {
  it.each(['GET', 'POST'])(
    '%s :subscribe without Last-Event-ID → 400 UNSUPPORTED_OPERATION',
    async (method) => {
      const task = await createTask(server.base, 'echo finished');
      const response = await subscribe(task.id, {}, method);
      expect(response.headers.get('content-type')).toBe('application/json');
      await expectA2AError(response, 400, 'UNSUPPORTED_OPERATION');
    },
  );

  it('treats an empty Last-Event-ID as none', async () => {
    const task = await createTask(server.base, 'echo finished');
    const response = await subscribe(task.id, { 'last-event-id': '' });
    await expectA2AError(response, 400, 'UNSUPPORTED_OPERATION');
  });
});

describe('a client that goes away', () => {
  it('does not cancel the task of a message:stream it hung up on', async () => {
    const go = freshName();
    const { events } = await readThenHangUp(
      `${server.base}/message:stream`,
      sendBody(`gate ${go} 2`),
      2,
    );
    const taskId = taskIdOf(events[0]);
    await streamEnded('/message:stream', taskId);
    const response = await subscribe(taskId);
    expect(response.status).toBe(200);
    const pending = readSse(response);
    signal(go).resolve();
    const after = (await pending).map((event) => describePayload(payloadOf(event)));
    expect(after).toEqual([
      'task:TASK_STATE_WORKING',
      'artifact:chunk-0',
      'artifact:chunk-1+append',
      'status:TASK_STATE_COMPLETED',
    ]);
    const task = (await (await get(`${server.base}/tasks/${taskId}`)).json()) as WireTask;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('does not cancel the task of a :subscribe it hung up on', async () => {
    const go = freshName();
    const first = await readThenHangUp(
      `${server.base}/message:stream`,
      sendBody(`gate ${go} 1`),
      2,
    );
    const taskId = taskIdOf(first.events[0]);
    const controller = new AbortController();
    const subscription = await fetch(`${server.base}/tasks/${taskId}:subscribe`, {
      headers: VERSION,
      signal: controller.signal,
    });
    for await (const event of sseEvents(subscription)) {
      expect(describePayload(payloadOf(event))).toBe('task:TASK_STATE_WORKING');
      break;
    }
    controller.abort();
    await streamEnded(`/tasks/${taskId}:subscribe`, taskId);
    const again = await subscribe(taskId, { 'last-event-id': '2' });
    const pending = readSse(again);
    signal(go).resolve();
    expect((await pending).map((event) => describePayload(payloadOf(event)))).toEqual([
      'artifact:chunk-0',
      'status:TASK_STATE_COMPLETED',
    ]);
  });
});
