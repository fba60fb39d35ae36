/**
 * Contract: concurrent writers. Each writer behaves like the runtime — append at the last seq it
 * knows, and on refusal reload the seq and retry — so whatever the interleaving, the stored log
 * and history must be exactly the accepted writes: none lost, none twice, seq dense.
 */

import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/protocol/generated/types.js';
import { TaskWriter, createTask, message, scope, useStore, type OpenStore } from './builders.js';

export function describeConcurrency(open: OpenStore): void {
  describe('concurrent writers', () => {
    const store = useStore(open);

    it('keeps 50 writers on 50 tasks apart', async () => {
      const writes = 20;
      const writers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => createTask(store(), `t${i}`)),
      );
      await Promise.all(
        writers.map(async (writer) => {
          for (let k = 0; k < writes; k++) {
            const note = message(`${writer.taskId}-w${k}`, `${k}`);
            await writer.writeRetrying({ message: note }, [{ kind: 'history', message: note }]);
          }
        }),
      );
      for (const writer of writers) {
        const stored = await store().getTask(scope, writer.taskId);
        expect(stored?.seq).toBe(writes + 1);
        expect(stored?.task.history?.map((m) => m.messageId)).toEqual([
          `${writer.taskId}-m0`,
          ...Array.from({ length: writes }, (_, k) => `${writer.taskId}-w${k}`),
        ]);
        const events = await store().readEvents(writer.taskId, 0, 100);
        expect(events?.map((e) => e.seq)).toEqual(
          Array.from({ length: writes + 1 }, (_, i) => i + 1),
        );
      }
    });

    it('serializes 10 writers on one task: every accepted write exactly once, in seq order', async () => {
      const writersCount = 10;
      const writes = 15;
      const first = await createTask(store(), 'shared');
      const writers = [first];
      for (let w = 1; w < writersCount; w++) {
        writers.push(new TaskWriter(store(), scope, 'shared', first.contextId));
      }
      const accepted = new Map<number, string>();
      let refusals = 0;
      await Promise.all(
        writers.map(async (writer, w) => {
          for (let k = 0; k < writes; k++) {
            const note = message(`w${w}-${k}`, `${w}/${k}`);
            for (;;) {
              const result = await writer.write({ message: note }, [
                { kind: 'history', message: note },
              ]);
              if (result.ok) {
                expect(accepted.has(result.seq)).toBe(false);
                accepted.set(result.seq, note.messageId);
                break;
              }
              refusals++;
              const stored = await store().getTask(scope, 'shared', { historyLength: 0 });
              writer.seq = stored?.seq ?? writer.seq;
            }
          }
        }),
      );
      const total = writersCount * writes;
      expect(accepted.size).toBe(total);
      expect(refusals).toBeGreaterThan(0);
      const inSeqOrder = [...accepted.entries()].sort(([a], [b]) => a - b).map(([, id]) => id);
      expect([...accepted.keys()].sort((a, b) => a - b)).toEqual(
        Array.from({ length: total }, (_, i) => i + 2),
      );

      const stored = await store().getTask(scope, 'shared');
      expect(stored?.seq).toBe(total + 1);
      const history = stored?.task.history?.map((m) => m.messageId) ?? [];
      expect(history).toEqual(['shared-m0', ...inSeqOrder]);
      const events = (await store().readEvents('shared', 1, 1000)) ?? [];
      expect(events.map((e) => e.seq)).toEqual(Array.from({ length: total }, (_, i) => i + 2));
      expect(events.map((e) => (e.payload.message as Message).messageId)).toEqual(inSeqOrder);
      for (let w = 0; w < writersCount; w++) {
        const mine = history.filter((id) => id.startsWith(`w${w}-`));
        expect(mine).toEqual(Array.from({ length: writes }, (_, k) => `w${w}-${k}`));
      }
    });
  });
}
