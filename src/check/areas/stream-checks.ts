/**
 * Streaming (spec 3.1.2, 3.1.6, 3.3.4, 9.4.2, 11.7), when the card declares it: the media type
 * and SSE framing of a stream (nothing but fields; one JSON event per `data`), the first event
 * (a Task or a Message), the events that follow (the task's, moving through legal states), the
 * close after a terminal or interrupted state, SubscribeToTask of a live and of a finished task,
 * and resuming after an event id where the agent numbers its events. Without the capability,
 * both streaming operations must be refused.
 */

import type { Task, TaskState } from '../../protocol/generated/types.js';
import {
  canTransition,
  isFinalOrInterruptedState,
  isTerminalState,
} from '../../protocol/task-state.js';
import type { InterfaceCheck } from '../check-implementation.js';
import { unknownTaskId, userMessage, type InterfaceCheckContext } from '../check-context.js';
import { readStream, stateOf, type StreamRun } from '../fixtures.js';
import type { StreamEnd, StreamEventRead } from '../probe/probe.js';
import { describeError, isErrorOfType } from '../probe/wire-error.js';
import {
  closeStream,
  describeOutcome,
  expectError,
  fail,
  isUnavailable,
  pass,
  skip,
  type Unavailable,
  type Verdict,
} from '../verdict.js';

const NOT_DECLARED = 'the card does not declare capabilities.streaming';

/** The streamed message, or why there is none to judge. */
async function streamed(context: InterfaceCheckContext): Promise<StreamRun | Unavailable> {
  if (!context.view.streaming) return { unavailable: NOT_DECLARED };
  return context.fixtures.streamed();
}

function describeEnd(end: StreamEnd): string {
  switch (end.end) {
    case 'closed':
      return 'the agent closed the stream';
    case 'error':
      return `the stream ended with ${describeError(end.error)}`;
    case 'broken':
      return end.problem;
    case 'timeout':
      return 'the checker stopped waiting';
    case 'stopped':
      return 'the checker closed the stream';
  }
}

function kindOf(event: StreamEventRead): string {
  const payload = event.payload;
  if (payload === undefined) return 'an unreadable event';
  if (payload.task !== undefined) return `a Task (${payload.task.status.state})`;
  if (payload.message !== undefined) return 'a Message';
  if (payload.statusUpdate !== undefined)
    return `a status update (${payload.statusUpdate.status.state})`;
  return 'an artifact update';
}

/** Why a stream could not be judged: it did not open. */
function notOpened(run: StreamRun): Verdict | undefined {
  if (run.outcome.kind === 'stream') return undefined;
  return fail(`SendStreamingMessage: the agent ${describeOutcome(run.outcome)}`, run.exchange);
}

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

/** What is wrong with the events after the first, for the task they began. */
function eventProblems(events: readonly StreamEventRead[]): string[] {
  const first = events[0]?.payload;
  if (first === undefined) return [];
  if (first.message !== undefined) {
    return events.length > 1
      ? [`the stream goes on after its Message with ${kindOf(events[1] as StreamEventRead)}`]
      : [];
  }
  const task: Task | undefined = first.task ?? undefined;
  const taskId = task?.id ?? first.statusUpdate?.taskId ?? first.artifactUpdate?.taskId;
  const contextId =
    task?.contextId ?? first.statusUpdate?.contextId ?? first.artifactUpdate?.contextId;
  let state: TaskState | undefined = task?.status.state ?? first.statusUpdate?.status.state;
  const problems: string[] = [];
  events.slice(1).forEach((event, index) => {
    const payload = event.payload;
    if (payload === undefined) return;
    const at = `event ${index + 2}`;
    if (payload.message !== undefined) {
      problems.push(`${at} is a Message inside a task's stream`);
      return;
    }
    const ids = payload.task ?? payload.statusUpdate ?? payload.artifactUpdate;
    const eventTaskId =
      payload.task?.id ?? payload.statusUpdate?.taskId ?? payload.artifactUpdate?.taskId;
    if (eventTaskId !== taskId)
      problems.push(`${at} is of task ${eventTaskId ?? '?'}, not ${taskId ?? '?'}`);
    if (ids?.contextId !== undefined && contextId !== undefined && ids.contextId !== contextId) {
      problems.push(`${at} is of context ${ids.contextId}, not ${contextId}`);
    }
    const next = stateOf(event);
    if (next === undefined || state === undefined) {
      state = next ?? state;
      return;
    }
    // A Task snapshot may repeat the final state (spec 11.7); a status change must be legal.
    const snapshot = payload.task !== undefined && next === state;
    if (!snapshot && !canTransition(state, next))
      problems.push(`${at} moves the task from ${state} to ${next}`);
    state = next;
  });
  return problems;
}

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

/** Whether the stream closed where it must, as a verdict. */
function closesVerdict(run: StreamRun, what: string): Verdict {
  const last = [...run.events].reverse().find((e) => e.payload !== undefined);
  const lastState = last === undefined ? undefined : stateOf(last);
  const finalSeen =
    last?.payload?.message !== undefined ||
    (lastState !== undefined && isFinalOrInterruptedState(lastState));
  switch (run.end.end) {
    case 'closed':
      return finalSeen
        ? pass(
            `${what} closed after ${last === undefined ? 'its end' : kindOf(last)}`,
            run.exchange,
          )
        : fail(
            `${what} closed while the task was ${lastState ?? 'not yet in a final state'}`,
            run.exchange,
          );
    case 'timeout':
      return finalSeen
        ? fail(
            `${what} stayed open after ${last === undefined ? 'its end' : kindOf(last)}`,
            run.exchange,
          )
        : skip(`the task was still ${lastState ?? 'running'} when the checker stopped reading`);
    case 'stopped':
      return skip('the checker closed the stream first');
    case 'error':
    case 'broken':
      return fail(`${what}: ${describeEnd(run.end)}`, run.exchange);
  }
}

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

const subscribe: InterfaceCheck = {
  id: 'stream.subscribe',
  async run(context) {
    const { probe, fixtures } = context;
    if (!context.view.streaming) return skip(NOT_DECLARED);
    const live = await fixtures.live('subscribe');
    if (isUnavailable(live)) return skip(live.unavailable);
    const { task } = live;
    if (isTerminalState(task.status.state))
      return skip(`the agent finished task ${task.id} before it could be subscribed to`);
    const outcome = await probe.stream('SubscribeToTask', { id: task.id });
    if (outcome.kind === 'error' && isErrorOfType(outcome.error, 'UnsupportedOperationError')) {
      const now = await probe.call('GetTask', { id: task.id });
      const state = now.kind === 'result' ? (now.value as Task).status.state : undefined;
      if (state !== undefined && isTerminalState(state)) {
        return skip(
          `task ${task.id} was ${state} by the time it was subscribed to, so no task stayed live`,
        );
      }
    }
    if (outcome.kind !== 'stream') {
      return fail(
        `SubscribeToTask of the ${task.status.state} task ${task.id}: the agent ${describeOutcome(outcome)}`,
        outcome.exchange,
      );
    }
    let canceled = false;
    const idleMs = context.options.timeoutMs ?? 10_000;
    const run = await readStream(outcome, {
      idleMs,
      totalMs: 3 * idleMs,
      onEvent: async (event) => {
        // Once the subscription has begun, the task is canceled so that it ends now.
        if (
          canceled ||
          stateOf(event) === undefined ||
          isTerminalState(stateOf(event) as TaskState)
        )
          return;
        canceled = true;
        await probe.call('CancelTask', { id: task.id });
      },
    });
    const first = run.events[0];
    if (first?.payload?.task === undefined) {
      return fail(
        `the subscription began with ${first === undefined ? 'no event' : kindOf(first)}, not the Task`,
        run.exchange,
      );
    }
    if (first.payload.task.id !== task.id)
      return fail(
        `the subscription began with task ${first.payload.task.id}, not ${task.id}`,
        run.exchange,
      );
    const problems = eventProblems(run.events);
    if (problems.length > 0) return fail(problems.slice(0, 3).join('; '), run.exchange);
    const ended = closesVerdict(run, 'the subscription');
    return ended.status === 'pass'
      ? pass(
          `began with the Task (${first.payload.task.status.state}); ${ended.detail}`,
          run.exchange,
        )
      : ended;
  },
};

const subscribeTerminal: InterfaceCheck = {
  id: 'stream.subscribe-terminal',
  async run(context) {
    if (!context.view.streaming) return skip(NOT_DECLARED);
    const finished = await context.fixtures.finished();
    if (isUnavailable(finished)) return skip(finished.unavailable);
    const { task } = finished;
    const outcome = await context.probe.stream('SubscribeToTask', { id: task.id });
    return expectError(
      outcome,
      'UnsupportedOperationError',
      context.probe.target.binding,
      `SubscribeToTask of the ${task.status.state} task ${task.id}`,
    );
  },
};

const resume: InterfaceCheck = {
  id: 'stream.resume',
  async run(context) {
    const run = await streamed(context);
    if (isUnavailable(run)) return skip(run.unavailable);
    const ids = run.events.map((e) => e.id);
    const taskId = run.events[0]?.payload?.task?.id;
    if (taskId === undefined) return skip("the stream was not a task's (see stream.first-event)");
    if (run.events.length < 2 || ids.some((id) => id === undefined))
      return skip('the agent does not number its events, so there is nothing to resume from');
    const after = ids[0] as string;
    const outcome = await context.probe.stream(
      'SubscribeToTask',
      { id: taskId },
      { lastEventId: after },
    );
    if (outcome.kind === 'error') {
      closeStream(outcome);
      return skip(
        `the agent does not replay the events of a finished task after Last-Event-ID ${after} (${describeError(outcome.error)}; §3.1.6 lets it refuse)`,
      );
    }
    if (outcome.kind !== 'stream')
      return fail(
        `SubscribeToTask after event ${after}: the agent ${describeOutcome(outcome)}`,
        outcome.exchange,
      );
    const idleMs = context.options.timeoutMs ?? 10_000;
    const replay = await readStream(outcome, { idleMs, totalMs: 2 * idleMs });
    const expected = ids.slice(1);
    const got = replay.events.map((e) => e.id);
    const replayed = got.filter((id) => id !== undefined && expected.includes(id));
    if (got.includes(after))
      return fail(`the resumed stream repeats event ${after}`, replay.exchange);
    return replayed.length === expected.length
      ? pass(`resumed after event ${after}: events ${expected.join(', ')} again`, replay.exchange)
      : fail(
          `resumed after event ${after}, the agent sent events ${got.join(', ') || 'none'}, not ${expected.join(', ')}`,
          replay.exchange,
        );
  },
};

const unsupported: InterfaceCheck = {
  id: 'stream.unsupported',
  async run(context) {
    const { probe, fixtures } = context;
    if (context.view.streaming) return skip('the card declares streaming');
    const subscription = await probe.stream('SubscribeToTask', { id: unknownTaskId() });
    const subscribed = expectError(
      subscription,
      'UnsupportedOperationError',
      probe.target.binding,
      'SubscribeToTask',
    );
    if (subscribed.status !== 'pass' || fixtures.safe) return subscribed;
    const sent = await probe.stream('SendStreamingMessage', { message: userMessage(context) });
    const streaming = expectError(
      sent,
      'UnsupportedOperationError',
      probe.target.binding,
      'SendStreamingMessage',
    );
    return streaming.status === 'pass'
      ? pass(`both refused: ${streaming.detail}`, streaming.exchange)
      : streaming;
  },
};

/** The checks of this area. */
export const STREAM_CHECKS: readonly InterfaceCheck[] = [
  contentType,
  framing,
  firstEvent,
  taskEvents,
  closes,
  v03Final,
  subscribe,
  subscribeTerminal,
  resume,
  unsupported,
];
