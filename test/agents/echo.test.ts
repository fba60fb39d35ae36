import { describe, expect, it } from 'vitest';
import { ECHO_LIMITS, echo } from '../../src/agents/echo.js';
import type { StreamEvent } from '../../src/server.js';
import {
  artifactUpdates,
  call,
  collect,
  describeEvents,
  handlerFor,
  request,
} from './agent-harness.js';

/** The event sequence of bench-agent.md for `n` chunks (with the optional WORKING status). */
function expectedStream(n: number): string[] {
  const chunks = Array.from({ length: n }, (_, i) =>
    i === 0
      ? n === 1
        ? 'artifact+last'
        : 'artifact'
      : i === n - 1
        ? 'artifact+append+last'
        : 'artifact+append',
  );
  return [
    'task:TASK_STATE_SUBMITTED',
    'status:TASK_STATE_WORKING',
    ...chunks,
    'status:TASK_STATE_COMPLETED',
  ];
}

function expectChunks(events: readonly StreamEvent[], n: number, bytes: number): void {
  expect(describeEvents(events)).toEqual(expectedStream(n));
  const updates = artifactUpdates(events);
  expect(updates).toHaveLength(n);
  expect(new Set(updates.map((u) => u.artifact.artifactId)).size).toBe(n === 0 ? 0 : 1);
  for (const update of updates) {
    expect(update.artifact.parts).toHaveLength(1);
    const text = update.artifact.parts[0]?.text ?? '';
    expect(text).toHaveLength(bytes);
    expect(/^[\x20-\x7e]*$/.test(text)).toBe(true);
  }
}

async function rejectionOf(text: string): Promise<string> {
  const { task } = await handlerFor(echo).sendMessage(call, request(text));
  expect(task?.status.state).toBe('TASK_STATE_REJECTED');
  expect(task?.artifacts ?? []).toHaveLength(0);
  return task?.status.message?.parts[0]?.text ?? '';
}

describe('echo: echo <s>', () => {
  it.each([
    ['echo hello', 'hello'],
    ['echo hello  world ', 'hello  world '],
    ['echo  leading space', ' leading space'],
    ['echo ', ''],
    ['echo', ''],
    ['echo echo 1 2', 'echo 1 2'],
  ])('answers %j with one completed artifact', async (text, expected) => {
    const handler = handlerFor(echo);
    const { task } = await handler.sendMessage(call, request(text));
    expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task?.artifacts).toHaveLength(1);
    expect(task?.artifacts?.[0]?.parts[0]?.text).toBe(expected);
    // GetTask answers the same task, artifact intact.
    const stored = await handler.getTask(call, { id: task?.id ?? '' });
    expect(stored.status.state).toBe('TASK_STATE_COMPLETED');
    expect(stored.artifacts?.[0]?.parts[0]?.text).toBe(expected);
  });

  it('streams task, artifact, completed', async () => {
    const events = await collect(
      await handlerFor(echo).sendStreamingMessage(call, request('echo hi')),
    );
    expect(describeEvents(events)).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'artifact+last',
      'status:TASK_STATE_COMPLETED',
    ]);
  });
});

describe('echo: stream <n> <bytes>', () => {
  it.each([
    [5, 16],
    [1, 8],
    [2, 1],
    [3, 0],
    [0, 4],
    [20, 1024],
  ])('streams %i chunks of %i bytes', async (n, bytes) => {
    const handler = handlerFor(echo);
    const events = await collect(
      await handler.sendStreamingMessage(call, request(`stream ${n} ${bytes}`)),
    );
    expectChunks(events, n, bytes);
    const task = await handler.getTask(call, { id: events[0]?.payload.task?.id ?? '' });
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts?.[0]?.parts.map((p) => p.text?.length) ?? []).toEqual(
      Array.from({ length: n }, () => bytes),
    );
  });

  it('streams one megabyte chunks', async () => {
    const events = await collect(
      await handlerFor(echo).sendStreamingMessage(
        call,
        request(`stream 2 ${ECHO_LIMITS.maxChunkBytes}`),
      ),
    );
    expectChunks(events, 2, 1_048_576);
  });

  it('produces each chunk in its own event-loop turn', async () => {
    let turns = 0;
    let ticking = true;
    const tick = (): void => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const n = 50;
    const events = await collect(
      await handlerFor(echo).sendStreamingMessage(call, request(`stream ${n} 8`)),
    );
    ticking = false;
    expectChunks(events, n, 8);
    expect(turns).toBeGreaterThanOrEqual(n);
  });

  it('answers a blocking SendMessage once all chunks are in', async () => {
    const { task } = await handlerFor(echo).sendMessage(call, request('stream 4 3'));
    expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task?.artifacts?.[0]?.parts.map((p) => p.text)).toEqual(['xxx', 'xxx', 'xxx', 'xxx']);
  });
});

describe('echo: slowstream <n> <ms> [bytes=64]', () => {
  it('waits <ms> before each chunk', async () => {
    const started = performance.now();
    const events = await collect(
      await handlerFor(echo).sendStreamingMessage(call, request('slowstream 3 30 8')),
    );
    const elapsed = performance.now() - started;
    expectChunks(events, 3, 8);
    // Timers may fire up to a millisecond early.
    expect(elapsed).toBeGreaterThanOrEqual(3 * 30 - 3);
  });

  it('defaults to 64-byte chunks', async () => {
    const events = await collect(
      await handlerFor(echo).sendStreamingMessage(call, request('slowstream 2 1')),
    );
    expectChunks(events, 2, 64);
  });

  it('stops early when the task is canceled', async () => {
    const handler = handlerFor(echo);
    const stream = await handler.sendStreamingMessage(call, request('slowstream 100 50 8'));
    const seen: StreamEvent[] = [];
    const started = performance.now();
    for await (const event of stream) {
      seen.push(event);
      if (event.payload.artifactUpdate !== undefined && artifactUpdates(seen).length === 1) {
        const canceled = await handler.cancelTask(call, {
          id: event.payload.artifactUpdate.taskId,
        });
        expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
      }
    }
    expect(describeEvents(seen).at(-1)).toBe('status:TASK_STATE_CANCELED');
    expect(artifactUpdates(seen)).toHaveLength(1);
    // The agent returned without waiting out its timer: shutdown finds nothing left to wait for.
    await handler.shutdown({ deadlineMs: 5_000 });
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('echo: validation and unknown commands', () => {
  it.each([
    ['stream', /<n> is missing/],
    ['stream 5', /<bytes> is missing/],
    ['stream -1 16', /<n> must be a non-negative integer/],
    ['stream 1.5 16', /<n> must be a non-negative integer/],
    ['stream five 16', /<n> must be a non-negative integer/],
    ['stream 5 0x10', /<bytes> must be a non-negative integer/],
    ['stream 100001 1', /<n> must be at most 100000/],
    ['stream 1 1048577', /<bytes> must be at most 1048576/],
    ['stream 1 99999999999', /<bytes> must be a non-negative integer/],
    ['stream 1 2 3', /stream takes at most 2 arguments/],
    ['slowstream 3', /<ms> is missing/],
    ['slowstream 3 60001', /<ms> must be at most 60000/],
    ['slowstream 3 10 -8', /<bytes> must be a non-negative integer/],
    ['slowstream 3 10 8 1', /slowstream takes at most 3 arguments/],
  ])('rejects %j', async (text, message) => {
    const reason = await rejectionOf(text);
    expect(reason).toMatch(message);
    expect(reason).toContain('stream <n> <bytes>');
  });

  it.each(['hello', 'Echo hi', 'STREAM 1 1', 'echoes', ''])(
    'rejects the unknown command %j with the list of commands',
    async (text) => {
      const reason = await rejectionOf(text);
      expect(reason).toMatch(/^Unknown command/);
      expect(reason).toContain(
        '"echo <text>", "stream <n> <bytes>" or "slowstream <n> <ms> [bytes=64]"',
      );
    },
  );
});

describe('echo card', () => {
  it('declares streaming and documents unknown commands', () => {
    expect(echo.card.capabilities?.streaming).toBe(true);
    expect(handlerFor(echo).card.capabilities.streaming).toBe(true);
    expect(echo.card.description).toMatch(/rejected/);
  });
});
