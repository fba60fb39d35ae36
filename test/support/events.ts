/**
 * Reading streams of events in tests: compact descriptions for comparing whole sequences, their
 * sequence numbers, the states and chunks they carry, and the check that a resumed stream picks
 * up exactly where the first one stopped.
 */

import { expect } from 'vitest';
import type { TaskState } from '../../src/index.js';
import type { StreamEvent } from './drivers/a2a-driver.js';

/** `"<seq> task <state>"`, `"<seq> status <state>"`, `"<seq> artifact a+b (append)"`, `"- message"`. */
export function describeEvent(event: StreamEvent): string {
  const seq = event.seq === undefined ? '-' : String(event.seq);
  const r = event.response;
  if (r.task !== undefined) return `${seq} task ${r.task.status.state}`;
  if (r.message !== undefined) return `${seq} message`;
  if (r.statusUpdate !== undefined) return `${seq} status ${r.statusUpdate.status.state}`;
  const parts = r.artifactUpdate?.artifact.parts.map((p) => p.text ?? '?').join('+') ?? '';
  return `${seq} artifact ${parts}${r.artifactUpdate?.append === true ? ' (append)' : ''}`;
}

/** The state a status-update event moves the task to; `undefined` for any other event. */
export function updateStateOf(event: StreamEvent | undefined): TaskState | undefined {
  return event?.response.statusUpdate?.status.state;
}

/** The state an event shows: a status update's, or a Task snapshot's. */
export function stateOf(event: StreamEvent | undefined): TaskState | undefined {
  return updateStateOf(event) ?? event?.response.task?.status.state;
}

/** The task id an event is about. */
export function taskIdOf(event: StreamEvent | undefined): string {
  const r = event?.response;
  const id = r?.task?.id ?? r?.statusUpdate?.taskId ?? r?.artifactUpdate?.taskId;
  if (id === undefined) throw new Error(`No task id in ${JSON.stringify(event?.response)}`);
  return id;
}

/** The text parts of the artifact chunks among `events`, in order. */
export function chunkTexts(events: readonly StreamEvent[]): string[] {
  return events.flatMap((event) =>
    (event.response.artifactUpdate?.artifact.parts ?? []).map((part) => part.text ?? '?'),
  );
}

/** The sequence numbers of `events`. */
export function seqsOf(events: readonly StreamEvent[]): (number | undefined)[] {
  return events.map((event) => event.seq);
}

/** `n` consecutive integers from `first`. */
export function range(first: number, n: number): number[] {
  return Array.from({ length: n }, (_, i) => first + i);
}

/** The sequence number of the last event, which a client sends back to resume after it. */
export function lastSeqOf(events: readonly StreamEvent[]): number {
  const seq = events.at(-1)?.seq;
  if (seq === undefined) throw new Error('The last event has no sequence number');
  return seq;
}

/**
 * Asserts that a stream resumed after event `after` starts at `after + 1` and goes on without a
 * gap or a duplicate: its sequence numbers are exactly `after + 1 … after + resumed.length`.
 */
export function expectResumedAfter(after: number, resumed: readonly StreamEvent[]): void {
  expect(seqsOf(resumed), `a stream resumed after event ${after}`).toEqual(
    range(after + 1, resumed.length),
  );
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/**
 * The events of a stream with what differs from task to task replaced: UUIDs by their order of
 * first appearance (so that "every event names the same task" still shows), timestamps by `T`.
 * Two runs of a deterministic agent give equal results.
 */
export function normalizeEvents(events: readonly StreamEvent[]): string[] {
  const labels = new Map<string, string>();
  return events.map((event) =>
    JSON.stringify({ seq: event.seq, response: event.response }, (_key, value: unknown) => {
      if (typeof value !== 'string') return value;
      if (TIMESTAMP.test(value)) return 'T';
      if (!UUID.test(value)) return value;
      let label = labels.get(value);
      if (label === undefined) {
        label = `uuid-${labels.size + 1}`;
        labels.set(value, label);
      }
      return label;
    }),
  );
}
