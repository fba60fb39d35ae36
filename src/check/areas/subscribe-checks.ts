/**
 * SubscribeToTask (spec 3.1.6, 3.3.4, 3.5.2): a live task's subscription begins with the Task and
 * follows it to its end (the checker cancels the task once the subscription runs), a finished
 * task's is refused, Last-Event-ID resumes where the agent numbers its events, and without the
 * streaming capability both streaming operations are refused.
 */

import type { Task, TaskState } from '../../protocol/generated/types.js';
import { isTerminalState } from '../../protocol/task-state.js';
import type { InterfaceCheck } from '../check-implementation.js';
import { unknownTaskId, userMessage } from '../check-context.js';
import { readStream, stateOf } from '../fixtures.js';

import { describeError, isErrorOfType } from '../probe/wire-error.js';
import {
  closeStream,
  describeOutcome,
  expectError,
  fail,
  isUnavailable,
  pass,
  skip,
} from '../verdict.js';
import { closesVerdict, eventProblems, kindOf, streamed, NOT_DECLARED } from './stream-reading.js';

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

/** The checks of SubscribeToTask and of the capability. */
export const SUBSCRIBE_CHECKS: readonly InterfaceCheck[] = [
  subscribe,
  subscribeTerminal,
  resume,
  unsupported,
];
