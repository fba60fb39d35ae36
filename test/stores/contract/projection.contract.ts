/** Contract: every mutation kind, and the views (`historyLength`, `includeArtifacts`). */

import { describe, expect, it } from 'vitest';
import type { Artifact } from '../../../src/protocol/generated/types.js';
import {
  T0,
  createTask,
  message,
  scope,
  status,
  textPart,
  useStore,
  type OpenStore,
} from './builders.js';

export function describeProjection(open: OpenStore): void {
  describe('mutations', () => {
    const store = useStore(open);
    const artifactsOf = async (id: string): Promise<Artifact[] | undefined> =>
      (await store().getTask(scope, id))?.task.artifacts;

    it('replaces the status and keeps the state in step', async () => {
      const writer = await createTask(store(), 't1');
      const note = message('s1', 'thinking', 'ROLE_AGENT');
      await writer.setStatus('TASK_STATE_WORKING', T0 + 5, note);
      await writer.setStatus('TASK_STATE_INPUT_REQUIRED', T0 + 9);
      const stored = await store().getTask(scope, 't1');
      expect(stored?.state).toBe('TASK_STATE_INPUT_REQUIRED');
      expect(stored?.task.status).toEqual(status('TASK_STATE_INPUT_REQUIRED', T0 + 9));
      expect(stored?.task.history?.map((m) => m.messageId)).toEqual(['t1-m0', 's1']);
    });

    it('appends history in order', async () => {
      const writer = await createTask(store(), 't1');
      const sent = Array.from({ length: 30 }, (_, i) =>
        message(`m${i}`, `text ${i}`, i % 2 === 0 ? 'ROLE_USER' : 'ROLE_AGENT'),
      );
      for (const m of sent) await writer.addMessage(m);
      const stored = await store().getTask(scope, 't1');
      expect(stored?.task.history).toEqual([message('t1-m0', 'hello t1'), ...sent]);
    });

    it('adds artifacts in order and replaces one whole, in place', async () => {
      const writer = await createTask(store(), 't1');
      await writer.artifact({
        artifactId: 'a',
        name: 'A',
        parts: [textPart('a1'), textPart('a2')],
      });
      await writer.artifact({ artifactId: 'b', parts: [textPart('b1')] });
      const replacement: Artifact = {
        artifactId: 'a',
        description: 'new',
        parts: [{ data: { replaced: true } }],
      };
      await writer.artifact(replacement);
      expect(await artifactsOf('t1')).toEqual([
        replacement,
        { artifactId: 'b', parts: [textPart('b1')] },
      ]);
    });

    it('appends many chunks in order, whatever the artifact before it', async () => {
      const writer = await createTask(store(), 't1');
      await writer.artifact({ artifactId: 'other', parts: [textPart('o')] });
      await writer.artifact({ artifactId: 'stream', parts: [textPart('c0')] });
      const chunks = 300;
      for (let i = 1; i < chunks; i++) {
        const parts = i % 10 === 0 ? [textPart(`c${i}`), { data: { i } }] : [textPart(`c${i}`)];
        await writer.artifact({ artifactId: 'stream', parts }, true);
      }
      const [other, stream] = (await artifactsOf('t1')) ?? [];
      expect(other).toEqual({ artifactId: 'other', parts: [textPart('o')] });
      const expected = [textPart('c0')];
      for (let i = 1; i < chunks; i++) {
        expected.push(textPart(`c${i}`));
        if (i % 10 === 0) expected.push({ data: { i } });
      }
      expect(stream?.parts).toEqual(expected);
      expect(writer.seq).toBe(chunks + 2);
    });

    it('merges the fields an append carries and keeps the others', async () => {
      const writer = await createTask(store(), 't1');
      await writer.artifact({
        artifactId: 'a',
        name: 'draft',
        description: 'kept',
        metadata: { v: 1, keep: 'no' },
        parts: [textPart('1')],
      });
      await writer.artifact({ artifactId: 'a', parts: [textPart('2')] }, true);
      await writer.artifact(
        {
          artifactId: 'a',
          name: 'final',
          metadata: { v: 2 },
          extensions: ['https://example.com/ext'],
          parts: [textPart('3')],
        },
        true,
      );
      expect(await artifactsOf('t1')).toEqual([
        {
          artifactId: 'a',
          name: 'final',
          description: 'kept',
          metadata: { v: 2 },
          extensions: ['https://example.com/ext'],
          parts: [textPart('1'), textPart('2'), textPart('3')],
        },
      ]);
    });

    it('creates the artifact when the first chunk is an append', async () => {
      const writer = await createTask(store(), 't1');
      await writer.artifact({ artifactId: 'a', name: 'n', parts: [textPart('1')] }, true);
      await writer.artifact({ artifactId: 'a', parts: [textPart('2')] }, true);
      expect(await artifactsOf('t1')).toEqual([
        { artifactId: 'a', name: 'n', parts: [textPart('1'), textPart('2')] },
      ]);
    });

    it('applies several mutations of one append in order', async () => {
      const writer = await createTask(store(), 't1');
      const next = status('TASK_STATE_COMPLETED', T0 + 3);
      const result = await writer.write(
        { statusUpdate: { taskId: 't1', contextId: writer.contextId, status: next } },
        [
          {
            kind: 'artifact',
            artifact: { artifactId: 'a', parts: [textPart('1')] },
            append: false,
          },
          { kind: 'artifact', artifact: { artifactId: 'a', parts: [textPart('2')] }, append: true },
          { kind: 'history', message: message('h', 'h') },
          { kind: 'status', status: status('TASK_STATE_WORKING', T0 + 2) },
          { kind: 'status', status: next },
        ],
      );
      expect(result).toEqual({ ok: true, seq: 2 });
      const stored = await store().getTask(scope, 't1');
      expect(stored?.state).toBe('TASK_STATE_COMPLETED');
      expect(stored?.task.status).toEqual(next);
      expect(stored?.task.artifacts).toEqual([
        { artifactId: 'a', parts: [textPart('1'), textPart('2')] },
      ]);
      expect(stored?.task.history?.map((m) => m.messageId)).toEqual(['t1-m0', 'h']);
    });

    it('never lets a later write show through a task already returned', async () => {
      const writer = await createTask(store(), 't1');
      await writer.artifact({ artifactId: 'a', parts: [textPart('1')] });
      const before = await store().getTask(scope, 't1');
      const snapshot = structuredClone(before);
      await writer.artifact({ artifactId: 'a', parts: [textPart('2')] }, true);
      await writer.addMessage(message('later', 'later'));
      expect(before).toEqual(snapshot);
    });
  });

  describe('views', () => {
    const store = useStore(open);

    async function taskWithHistory(count: number): Promise<void> {
      const writer = await createTask(store(), 't1', { history: [] });
      for (let i = 0; i < count; i++) await writer.addMessage(message(`m${i}`, `${i}`));
      await writer.artifact({ artifactId: 'a', parts: [textPart('x')] });
    }

    const ids = async (historyLength?: number): Promise<string[] | undefined> => {
      const view = historyLength === undefined ? {} : { historyLength };
      return (await store().getTask(scope, 't1', view))?.task.history?.map((m) => m.messageId);
    };

    it('cuts the history to the most recent messages', async () => {
      await taskWithHistory(5);
      expect(await ids()).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
      expect(await ids(1)).toEqual(['m4']);
      expect(await ids(3)).toEqual(['m2', 'm3', 'm4']);
      expect(await ids(5)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
      expect(await ids(50)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
    });

    it('omits the history field for historyLength 0 and keeps it empty otherwise', async () => {
      await taskWithHistory(0);
      const none = await store().getTask(scope, 't1', { historyLength: 0 });
      expect(none?.task).not.toHaveProperty('history');
      expect((await store().getTask(scope, 't1'))?.task.history).toEqual([]);
      expect((await store().getTask(scope, 't1', { historyLength: 2 }))?.task.history).toEqual([]);
    });

    it('omits the artifacts field when includeArtifacts is false', async () => {
      await taskWithHistory(2);
      const without = await store().getTask(scope, 't1', { includeArtifacts: false });
      expect(without?.task).not.toHaveProperty('artifacts');
      expect(without?.task.history).toHaveLength(2);
      const minimal = await store().getTask(scope, 't1', {
        historyLength: 0,
        includeArtifacts: false,
      });
      expect(Object.keys(minimal?.task ?? {}).sort()).toEqual(['contextId', 'id', 'status']);
      const full = await store().getTask(scope, 't1', { includeArtifacts: true });
      expect(full?.task.artifacts).toEqual([{ artifactId: 'a', parts: [textPart('x')] }]);
    });
  });
}
