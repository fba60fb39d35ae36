/**
 * Streaming (spec 3.1.2, 9.4.2, 11.7), when the card declares it: the media type and SSE framing
 * of a stream (nothing but fields; one JSON event per `data`), the first event (a Task or a
 * Message), the events that follow (the task's, moving through legal states), the close after a
 * terminal or interrupted state, and 0.3's `final` mark on the last status update.
 */

import type { TaskState } from '../../protocol/generated/types.js';
import { isFinalOrInterruptedState } from '../../protocol/task-state.js';
import type { InterfaceCheck } from '../check-implementation.js';

import { stateOf } from '../fixtures.js';
import type { StreamEventRead } from '../probe/probe.js';

import { describeOutcome, fail, isUnavailable, pass, skip } from '../verdict.js';
import {
  closesVerdict,
  describeEnd,
  eventProblems,
  kindOf,
  notOpened,
  streamed,
} from './stream-reading.js';

const contentType: InterfaceCheck = {
  id: 'stream.content-type',
  async run(context) {
    const run = await streamed(context);
    if (isUnavailable(run)) return skip(run.unavailable);
    if (run.outcome.kind === 'stream')
      return pass(`served as ${run.outcome.mediaType ?? ''}`, run.exchange);
    return fail(`SendStreamingMessage: the agent ${describeOutcome(run.outcome)}`, run.exchange);
  },
};

const framing: InterfaceCheck = {
  id: 'stream.framing',
  async run(context) {
    const run = await streamed(context);
    if (isUnavailable(run)) return skip(run.unavailable);
    const unopened = notOpened(run);
    if (unopened !== undefined) return unopened;
    if (run.strayLines.length > 0) {
      return fail(
        `the stream holds ${run.strayLines.length === 1 ? 'a line' : 'lines'} that no SSE client reads (a browser drops the event): ${run.strayLines.map((l) => JSON.stringify(l.slice(0, 60))).join(', ')}`,
        run.exchange,
      );
    }
    const broken = run.events.find((e) => e.problem !== undefined);
    if (broken !== undefined) return fail(broken.problem ?? '', run.exchange);
    if (run.end.end === 'broken') return fail(run.end.problem, run.exchange);
    return pass(`${run.events.length} well-formed event(s)`, run.exchange);
  },
};

const firstEvent: InterfaceCheck = {
  id: 'stream.first-event',
  async run(context) {
    const run = await streamed(context);
    if (isUnavailable(run)) return skip(run.unavailable);
    const unopened = notOpened(run);
    if (unopened !== undefined) return unopened;
    const first = run.events[0];
    if (first === undefined)
      return fail(`the stream had no event: ${describeEnd(run.end)}`, run.exchange);
    if (first.payload === undefined)
      return fail(`the first event cannot be read: ${first.problem ?? ''}`, run.exchange);
    return first.payload.task !== undefined || first.payload.message !== undefined
      ? pass(`the first event is ${kindOf(first)}`, run.exchange)
      : fail(`the first event is ${kindOf(first)}, not a Task or a Message`, run.exchange);
  },
};

const taskEvents: InterfaceCheck = {
  id: 'stream.task-events',
  async run(context) {
    const run = await streamed(context);
    if (isUnavailable(run)) return skip(run.unavailable);
    const unopened = notOpened(run);
    if (unopened !== undefined) return unopened;
    if (run.events.length === 0) return skip('the stream had no event (see stream.first-event)');
    const problems = eventProblems(run.events);
    const states = run.events.map(stateOf).filter((s): s is TaskState => s !== undefined);
    return problems.length === 0
      ? pass(
          `${run.events.length} event(s); states ${states.map((s) => s.replace('TASK_STATE_', '')).join(' → ') || '(none)'}`,
          run.exchange,
        )
      : fail(problems.slice(0, 3).join('; '), run.exchange);
  },
};

const closes: InterfaceCheck = {
  id: 'stream.closes',
  async run(context) {
    const run = await streamed(context);
    if (isUnavailable(run)) return skip(run.unavailable);
    return notOpened(run) ?? closesVerdict(run, 'the stream');
  },
};

function rawFinal(event: StreamEventRead): unknown {
  const raw = event.raw as Record<string, unknown> | undefined;
  if (raw === undefined || typeof raw !== 'object') return undefined;
  if (raw.kind === 'status-update') return raw.final;
  const update = raw.statusUpdate as Record<string, unknown> | undefined;
  return update?.final;
}

const v03Final: InterfaceCheck = {
  id: 'v03.final',
  async run(context) {
    const run = await streamed(context);
    if (isUnavailable(run)) return skip(run.unavailable);
    const unopened = notOpened(run);
    if (unopened !== undefined) return unopened;
    const closing = run.events.find((e) => {
      const state = e.payload?.statusUpdate?.status.state;
      return state !== undefined && isFinalOrInterruptedState(state);
    });
    if (closing === undefined)
      return skip('the stream had no status update into a terminal or interrupted state');
    return rawFinal(closing) === true
      ? pass(
          `the status update into ${closing.payload?.statusUpdate?.status.state ?? ''} is marked final`,
          run.exchange,
        )
      : fail(
          `the status update into ${closing.payload?.statusUpdate?.status.state ?? ''} has final ${JSON.stringify(rawFinal(closing))}, not true`,
          run.exchange,
        );
  },
};

/** The checks of a stream's own answer. */
export const STREAM_CHECKS: readonly InterfaceCheck[] = [
  contentType,
  framing,
  firstEvent,
  taskEvents,
  closes,
  v03Final,
];
