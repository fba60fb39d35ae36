import { afterEach, describe, expect, it } from 'vitest';
import {
  CONFORMANCE_PREFIXES,
  conformance,
  conformanceBehaviourOf,
  streamingTimeoutSeconds,
} from '../../src/agents/conformance.js';
import { type Part, type Task } from '../../src/index.js';
import { decodeBase64 } from '../../src/codecs.js';
import type { StreamEvent } from '../../src/server.js';
import {
  artifactUpdates,
  call,
  collect,
  describeEvents,
  handlerFor,
  request,
  setEnv,
} from './agent-harness.js';

const handler = handlerFor(conformance);

async function send(messageId: string, taskId?: string) {
  return handler.sendMessage(
    call,
    request('conformance', taskId === undefined ? { messageId } : { messageId, taskId }),
  );
}

async function sendTask(messageId: string, taskId?: string): Promise<Task> {
  const { task, message } = await send(messageId, taskId);
  expect(message).toBeUndefined();
  if (task === undefined) throw new Error('expected a task');
  return task;
}

async function stream(messageId: string): Promise<StreamEvent[]> {
  return collect(await handler.sendStreamingMessage(call, request('conformance', { messageId })));
}

function onlyArtifactPart(task: Task): Part {
  expect(task.artifacts).toHaveLength(1);
  expect(task.artifacts?.[0]?.parts).toHaveLength(1);
  return task.artifacts?.[0]?.parts[0] as Part;
}

function expectRawOutputFile(part: Part | undefined): void {
  expect(Object.keys(part ?? {}).sort()).toEqual(['filename', 'mediaType', 'raw']);
  expect(part?.filename).toBe('output.txt');
  expect(part?.mediaType).toBe('text/plain');
  expect(decodeBase64(part?.raw ?? '').length).toBeGreaterThan(0);
}

const WORKING_ARTIFACT_COMPLETED = [
  'task:TASK_STATE_SUBMITTED',
  'status:TASK_STATE_WORKING',
  'artifact+last',
  'status:TASK_STATE_COMPLETED',
];

describe('conformance agent: task rows', () => {
  it('tck-complete-task completes with "Hello from TCK"', async () => {
    const task = await sendTask('tck-complete-task-001');
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.status.message?.role).toBe('ROLE_AGENT');
    expect(task.status.message?.parts).toEqual([{ text: 'Hello from TCK' }]);
    expect(task.artifacts ?? []).toHaveLength(0);
  });

  it('tck-input-required leaves the task open in INPUT_REQUIRED', async () => {
    const task = await sendTask('tck-input-required-001');
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect((await handler.getTask(call, { id: task.id })).status.state).toBe(
      'TASK_STATE_INPUT_REQUIRED',
    );
  });

  it('tck-message-response replies with a bare message', async () => {
    const { task, message } = await send('tck-message-response-001');
    expect(task).toBeUndefined();
    expect(message?.role).toBe('ROLE_AGENT');
    expect(message?.taskId).toBeUndefined();
    expect(message?.parts).toEqual([{ text: 'Direct message response' }]);
    const events = await stream('tck-message-response-002');
    expect(describeEvents(events)).toEqual(['message']);
  });

  it('tck-artifact-text emits "Generated text content", then completes', async () => {
    const task = await sendTask('tck-artifact-text-001');
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(onlyArtifactPart(task)).toEqual({ text: 'Generated text content' });
  });

  it('tck-artifact-file-url emits one url part (not taken for tck-artifact-file)', async () => {
    const task = await sendTask('tck-artifact-file-url-001');
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(onlyArtifactPart(task)).toEqual({
      url: 'https://example.com/output.txt',
      filename: 'output.txt',
      mediaType: 'text/plain',
    });
  });

  it('tck-artifact-file emits one raw part', async () => {
    const task = await sendTask('tck-artifact-file-001');
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expectRawOutputFile(onlyArtifactPart(task));
  });

  it('tck-artifact-data emits {"key":"value","count":42}', async () => {
    const task = await sendTask('tck-artifact-data-001');
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(onlyArtifactPart(task).data).toEqual({ key: 'value', count: 42 });
  });

  it('tck-reject-task rejects the task', async () => {
    const task = await sendTask('tck-reject-task-001');
    expect(task.status.state).toBe('TASK_STATE_REJECTED');
    expect(task.artifacts ?? []).toHaveLength(0);
  });

  it('anything else completes with a short message', async () => {
    for (const messageId of [
      crypto.randomUUID(),
      'tck-unknown-001',
      'tck-stream-004',
      'TCK-COMPLETE-TASK',
    ]) {
      const task = await sendTask(messageId);
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(task.status.message?.parts[0]?.text).toBe('Done');
      expect(task.artifacts ?? []).toHaveLength(0);
    }
  });
});

describe('conformance agent: stream rows', () => {
  it.each([
    ['tck-stream-001', 'Stream hello from TCK'],
    ['tck-stream-003', 'Stream task lifecycle'],
    ['tck-stream-ordering-001', 'Ordered output'],
    ['tck-stream-artifact-text', 'Streamed text content'],
  ])('%s: working → artifact %j → completed', async (prefix, text) => {
    const events = await stream(`${prefix}-${crypto.randomUUID()}`);
    expect(describeEvents(events)).toEqual(WORKING_ARTIFACT_COMPLETED);
    expect(artifactUpdates(events)[0]?.artifact.parts).toEqual([{ text }]);
  });

  it('tck-stream-002: completed', async () => {
    const events = await stream('tck-stream-002-abc');
    expect(describeEvents(events)).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_COMPLETED',
    ]);
  });

  it('tck-stream-artifact-file: working → raw file artifact → completed', async () => {
    const events = await stream('tck-stream-artifact-file-001');
    expect(describeEvents(events)).toEqual(WORKING_ARTIFACT_COMPLETED);
    const parts = artifactUpdates(events)[0]?.artifact.parts ?? [];
    expect(parts).toHaveLength(1);
    expectRawOutputFile(parts[0]);
  });

  it('tck-stream-artifact-chunked: "chunk-1 " (append) then "chunk-2" (append, last)', async () => {
    const events = await stream('tck-stream-artifact-chunked-001');
    expect(describeEvents(events)).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
      'artifact+append',
      'artifact+append+last',
      'status:TASK_STATE_COMPLETED',
    ]);
    const [first, second] = artifactUpdates(events);
    expect(first?.artifact.parts).toEqual([{ text: 'chunk-1 ' }]);
    expect(second?.artifact.parts).toEqual([{ text: 'chunk-2' }]);
    expect(second?.artifact.artifactId).toBe(first?.artifact.artifactId);
    const task = await handler.getTask(call, { id: first?.taskId ?? '' });
    expect(task.artifacts).toHaveLength(1);
    expect(task.artifacts?.[0]?.parts).toEqual([{ text: 'chunk-1 ' }, { text: 'chunk-2' }]);
  });

  it('answers the non-stream rows on a stream too', async () => {
    expect(describeEvents(await stream('tck-complete-task-s'))).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_COMPLETED',
    ]);
    expect(describeEvents(await stream('tck-artifact-text-s'))).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'artifact+last',
      'status:TASK_STATE_COMPLETED',
    ]);
    expect(describeEvents(await stream('tck-input-required-s'))).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_INPUT_REQUIRED',
    ]);
  });
});

describe('conformance agent: continuing an input-required task', () => {
  it("decides again by the follow-up message's prefix", async () => {
    const task = await sendTask('tck-input-required-a1');
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');

    const again = await sendTask('tck-input-required-a2', task.id);
    expect(again.id).toBe(task.id);
    expect(again.status.state).toBe('TASK_STATE_INPUT_REQUIRED');

    const done = await sendTask('tck-artifact-text-a3', task.id);
    expect(done.id).toBe(task.id);
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(onlyArtifactPart(done)).toEqual({ text: 'Generated text content' });
  });

  it('completes with the message text when the follow-up asks for a bare message', async () => {
    const task = await sendTask('tck-input-required-b1');
    const done = await sendTask('tck-message-response-b2', task.id);
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(done.status.message?.parts).toEqual([{ text: 'Direct message response' }]);
  });

  it('can be rejected or completed by the follow-up', async () => {
    const first = await sendTask('tck-input-required-c1');
    expect((await sendTask('tck-reject-task-c2', first.id)).status.state).toBe(
      'TASK_STATE_REJECTED',
    );
    const second = await sendTask('tck-input-required-d1');
    const done = await sendTask('tck-complete-task-d2', second.id);
    expect(done.status.message?.parts).toEqual([{ text: 'Hello from TCK' }]);
  });
});

describe('conformance agent: test-resubscribe-message-id', () => {
  let restore: (() => void) | undefined;
  afterEach(() => {
    restore?.();
    restore = undefined;
  });

  it('stays WORKING for 2 × TCK_STREAMING_TIMEOUT, then completes', async () => {
    restore = setEnv({ TCK_STREAMING_TIMEOUT: '0.05' });
    const local = handlerFor(conformance);
    const started = performance.now();
    const live = await local.sendStreamingMessage(
      call,
      request('hold', { messageId: 'test-resubscribe-message-id-1' }),
    );
    const events: StreamEvent[] = [];
    let resubscribed: StreamEvent[] = [];
    for await (const event of live) {
      events.push(event);
      if (event.payload.statusUpdate?.status.state === 'TASK_STATE_WORKING') {
        // Still working: a second client can subscribe and sees the end.
        const taskId = event.payload.statusUpdate.taskId;
        expect((await local.getTask(call, { id: taskId })).status.state).toBe('TASK_STATE_WORKING');
        resubscribed = await collect(await local.subscribeToTask(call, { id: taskId }));
      }
    }
    const elapsed = performance.now() - started;
    expect(describeEvents(events)).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
      'status:TASK_STATE_COMPLETED',
    ]);
    expect(describeEvents(resubscribed)).toEqual([
      'task:TASK_STATE_WORKING',
      'status:TASK_STATE_COMPLETED',
    ]);
    expect(elapsed).toBeGreaterThanOrEqual(2 * 50 - 2);
    expect(elapsed).toBeLessThan(2_000);
  });

  it('reads TCK_STREAMING_TIMEOUT when it runs, not when the agent is loaded', async () => {
    const local = handlerFor(conformance);
    restore = setEnv({ TCK_STREAMING_TIMEOUT: '0.15' });
    const started = performance.now();
    const { task } = await local.sendMessage(
      call,
      request('hold', { messageId: 'test-resubscribe-message-id-2' }),
    );
    expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(performance.now() - started).toBeGreaterThanOrEqual(2 * 150 - 2);
  });

  it.each(['', 'abc', '-1'])(
    'holds for the default 2 × 2 s when TCK_STREAMING_TIMEOUT is %j',
    async (value) => {
      restore = setEnv({ TCK_STREAMING_TIMEOUT: value });
      expect(streamingTimeoutSeconds()).toBe(2);
      const local = handlerFor(conformance);
      const live = await local.sendStreamingMessage(
        call,
        request('hold', { messageId: 'test-resubscribe-message-id-default' }),
      );
      const events: StreamEvent[] = [];
      for await (const event of live) {
        events.push(event);
        const update = event.payload.statusUpdate;
        // Holding for 4 s, the task is still WORKING when the cancel comes right after.
        if (update?.status.state === 'TASK_STATE_WORKING') {
          const canceled = await local.cancelTask(call, { id: update.taskId });
          expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
        }
      }
      expect(describeEvents(events)).toEqual([
        'task:TASK_STATE_SUBMITTED',
        'status:TASK_STATE_WORKING',
        'status:TASK_STATE_CANCELED',
      ]);
      await local.shutdown({ deadlineMs: 5_000 });
    },
  );

  it('returns early when canceled', async () => {
    restore = setEnv({ TCK_STREAMING_TIMEOUT: '5' });
    const local = handlerFor(conformance);
    const started = performance.now();
    const live = await local.sendStreamingMessage(
      call,
      request('hold', { messageId: 'test-resubscribe-message-id-3' }),
    );
    const events: StreamEvent[] = [];
    for await (const event of live) {
      events.push(event);
      const update = event.payload.statusUpdate;
      if (update?.status.state === 'TASK_STATE_WORKING') {
        const canceled = await local.cancelTask(call, { id: update.taskId });
        expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
      }
    }
    expect(describeEvents(events)).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
      'status:TASK_STATE_CANCELED',
    ]);
    // The agent stopped waiting: shutdown has no execution left to wait 10 s for.
    await local.shutdown({ deadlineMs: 10_000 });
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('conformance agent: prefixes and card', () => {
  it('matches the longest prefix first', () => {
    expect(conformanceBehaviourOf('tck-artifact-file-url-1')).not.toBe(
      conformanceBehaviourOf('tck-artifact-file-1'),
    );
    expect(conformanceBehaviourOf('tck-stream-artifact-file-1')).not.toBe(
      conformanceBehaviourOf('tck-artifact-file-1'),
    );
    expect(conformanceBehaviourOf('x')).toBe(conformanceBehaviourOf('y'));
  });

  it('lists every row of the table', () => {
    expect(CONFORMANCE_PREFIXES).toEqual([
      'tck-complete-task',
      'tck-input-required',
      'tck-message-response',
      'tck-artifact-text',
      'tck-artifact-file-url',
      'tck-artifact-file',
      'tck-artifact-data',
      'tck-reject-task',
      'tck-stream-001',
      'tck-stream-002',
      'tck-stream-003',
      'tck-stream-ordering-001',
      'tck-stream-artifact-text',
      'tck-stream-artifact-file',
      'tck-stream-artifact-chunked',
      'test-resubscribe-message-id',
    ]);
  });

  it('declares streaming, push notifications and an extended card', () => {
    expect(conformance.card.capabilities).toEqual({
      streaming: true,
      pushNotifications: true,
      extendedAgentCard: true,
    });
  });

  it('serves as extended card the public card plus one skill', async () => {
    const extended = await handler.getExtendedAgentCard(call, {});
    expect(extended.skills.map((skill) => skill.id)).toEqual([
      ...conformance.card.skills.map((skill) => skill.id),
      'conformance-extended',
    ]);
    expect(extended.name).toBe(conformance.card.name);
  });

  it('accepts parts of any media type', async () => {
    const { task } = await handler.sendMessage(call, {
      message: {
        messageId: 'tck-complete-task-media',
        role: 'ROLE_USER',
        parts: [{ raw: 'AAEC', mediaType: 'application/pdf', filename: 'a.pdf' }],
      },
    });
    expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
  });
});
