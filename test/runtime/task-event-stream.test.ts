/**
 * Push delivery of a task's events (`TaskEventStream.pushTo`), on a real memory store and hub:
 * order, back-pressure with catch-up from the store's log, ending exactly once however the
 * stream ends, and a failing store read reported to the sink.
 */

import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../src/protocol/generated/types.js';
import type { EventSink } from '../../src/runtime/event-push.js';
import { silentLogger } from '../../src/runtime/logger.js';
import { streamEvent, type StreamEvent } from '../../src/runtime/stream-event.js';
import { TaskEventHub } from '../../src/runtime/task-event-hub.js';
import { TaskEventStream } from '../../src/runtime/task-event-stream.js';
import { MemoryTaskStore } from '../../src/stores/memory/memory-task-store.js';
import type { TaskStore } from '../../src/stores/task-store.js';
import { createTask, type TaskWriter } from '../stores/contract/builders.js';
import { deferred, within } from '../support/sync.js';

/** A sink that records what it gets and answers `accept()` to each event. */
class RecordingSink implements EventSink {
  readonly seqs: (number | undefined)[] = [];
  ends: unknown[] = [];
  accept: () => boolean = () => true;

  event(event: StreamEvent): boolean {
    this.seqs.push(event.seq);
    return this.accept();
  }

  end(error?: unknown): void {
    this.ends.push(error);
  }
}

interface Fixture {
  readonly store: TaskStore;
  readonly hub: TaskEventHub;
  readonly writer: TaskWriter;
  /** Appends an artifact chunk (or, with a state, a status update) and publishes it. */
  publish(state?: 'TASK_STATE_WORKING' | 'TASK_STATE_COMPLETED'): Promise<void>;
  open(options?: { bufferSize?: number; afterSeq?: number; store?: TaskStore }): TaskEventStream;
}

async function fixture(): Promise<Fixture> {
  const store = new MemoryTaskStore();
  const hub = new TaskEventHub(silentLogger);
  const writer = await createTask(store, 't1');
  let chunk = 0;
  return {
    store,
    hub,
    writer,
    async publish(state) {
      const before = writer.seq;
      let payload: StreamResponse;
      if (state === undefined) {
        const artifact = { artifactId: 'a1', parts: [{ text: `chunk ${chunk++}` }] };
        await writer.artifact(artifact, chunk > 1);
        payload = { artifactUpdate: { taskId: 't1', contextId: writer.contextId, artifact } };
      } else {
        await writer.setStatus(state, Date.now());
        payload = {
          statusUpdate: { taskId: 't1', contextId: writer.contextId, status: { state } },
        };
      }
      expect(writer.seq).toBe(before + 1);
      hub.publish('t1', streamEvent(writer.seq, payload));
    },
    open(options = {}) {
      return new TaskEventStream({
        store: options.store ?? store,
        hub,
        logger: silentLogger,
        taskId: 't1',
        afterSeq: options.afterSeq ?? writer.seq,
        catchUp: options.afterSeq !== undefined,
        bufferSize: options.bufferSize ?? 16,
      });
    },
  };
}

/** Resolves once the sink has received `count` events. */
async function eventsArrive(sink: RecordingSink, count: number): Promise<void> {
  while (sink.seqs.length < count) await new Promise((resolve) => setImmediate(resolve));
}

describe('TaskEventStream push delivery', () => {
  it('delivers live events in order and ends once after the terminal one', async () => {
    const f = await fixture();
    const stream = f.open();
    const sink = new RecordingSink();
    stream.pushTo(sink);
    await f.publish('TASK_STATE_WORKING');
    await f.publish();
    await f.publish('TASK_STATE_COMPLETED');
    expect(sink.seqs).toEqual([2, 3, 4]);
    expect(sink.ends).toEqual([undefined]);
    expect(f.hub.listenerCount('t1')).toBe(0);
  });

  it('holds events while the sink is full and catches up from the log on resume', async () => {
    const f = await fixture();
    const stream = f.open({ bufferSize: 2 });
    const sink = new RecordingSink();
    sink.accept = () => false;
    stream.pushTo(sink);
    await f.publish('TASK_STATE_WORKING');
    // Paused: none of these reaches the sink, and more than the buffer holds are published.
    for (let i = 0; i < 5; i++) await f.publish();
    await f.publish('TASK_STATE_COMPLETED');
    expect(sink.seqs).toEqual([2]);
    sink.accept = () => true;
    stream.resume();
    await eventsArrive(sink, 7);
    expect(sink.seqs).toEqual([2, 3, 4, 5, 6, 7, 8]);
    expect(sink.ends).toEqual([undefined]);
  });

  it('starts from the log when it begins behind the task (Last-Event-ID)', async () => {
    const f = await fixture();
    await f.publish('TASK_STATE_WORKING');
    await f.publish();
    const stream = f.open({ afterSeq: 1 });
    const sink = new RecordingSink();
    stream.pushTo(sink);
    await eventsArrive(sink, 2);
    await f.publish('TASK_STATE_COMPLETED');
    expect(sink.seqs).toEqual([2, 3, 4]);
    expect(sink.ends).toEqual([undefined]);
  });

  it('ends the sink once when stopped, and releases its subscription', async () => {
    const f = await fixture();
    const stream = f.open();
    const sink = new RecordingSink();
    stream.pushTo(sink);
    await f.publish('TASK_STATE_WORKING');
    stream.stop();
    stream.stop();
    await f.publish();
    expect(sink.seqs).toEqual([2]);
    expect(sink.ends).toEqual([undefined]);
    expect(f.hub.listenerCount('t1')).toBe(0);
  });

  it('reads the log again when a poke comes while a read is in flight', async () => {
    // Another process's write announced while an earlier read (which began before that write
    // committed) is still running: the read finds nothing new, and the stream must read again.
    const f = await fixture();
    const held = deferred();
    let reads = 0;
    const slow: TaskStore = Object.assign(Object.create(f.store) as TaskStore, {
      readEvents: async (...args: Parameters<TaskStore['readEvents']>) => {
        const entries = await f.store.readEvents(...args);
        if (++reads === 1) await held.promise;
        return entries;
      },
    });
    const stream = f.open({ store: slow });
    const sink = new RecordingSink();
    stream.pushTo(sink);
    const working = { taskId: 't1', contextId: f.writer.contextId };
    await f.writer.setStatus('TASK_STATE_WORKING', Date.now());
    // Its announcement comes first and starts a read; the event itself follows from the hub.
    f.hub.poke('t1', 2);
    f.hub.publish(
      't1',
      streamEvent(2, { statusUpdate: { ...working, status: { state: 'TASK_STATE_WORKING' } } }),
    );
    expect(sink.seqs).toEqual([2]);
    await f.writer.setStatus('TASK_STATE_COMPLETED', Date.now());
    f.hub.poke('t1', 3);
    held.resolve();
    await within(stream.closed, 5_000, 'the stream to read event 3 and end');
    expect(reads).toBe(2);
    expect(sink.seqs).toEqual([2, 3]);
    expect(sink.ends).toEqual([undefined]);
  });

  it('ends the sink with the error when reading the log fails', async () => {
    const f = await fixture();
    const failure = new Error('disk gone');
    const failing: TaskStore = Object.assign(Object.create(f.store) as TaskStore, {
      readEvents: () => Promise.reject(failure),
    });
    const stream = f.open({ afterSeq: 0, store: failing });
    const sink = new RecordingSink();
    stream.pushTo(sink);
    await stream.closed;
    expect(sink.seqs).toEqual([]);
    expect(sink.ends).toEqual([failure]);
  });
});
