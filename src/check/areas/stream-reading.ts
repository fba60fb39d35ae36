/**
 * What the streaming checks share: the streamed message of the interface (when the card declares
 * streaming), and the readings of a stream — how it ended, what each event is, what is wrong with
 * the events after the first, and whether it closed where spec 3.1.2 says it must.
 */

import type { Task, TaskState } from '../../protocol/generated/types.js';
import { canTransition, isFinalOrInterruptedState } from '../../protocol/task-state.js';

import { type InterfaceCheckContext } from '../check-context.js';
import { stateOf, type StreamRun } from '../fixtures.js';
import type { StreamEnd, StreamEventRead } from '../probe/probe.js';
import { describeError } from '../probe/wire-error.js';
import { describeOutcome, fail, pass, skip, type Unavailable, type Verdict } from '../verdict.js';

export const NOT_DECLARED = 'the card does not declare capabilities.streaming';

/** The streamed message, or why there is none to judge. */
export async function streamed(context: InterfaceCheckContext): Promise<StreamRun | Unavailable> {
  if (!context.view.streaming) return { unavailable: NOT_DECLARED };
  return context.fixtures.streamed();
}

export function describeEnd(end: StreamEnd): string {
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

export function kindOf(event: StreamEventRead): string {
  const payload = event.payload;
  if (payload === undefined) return 'an unreadable event';
  if (payload.task !== undefined) return `a Task (${payload.task.status.state})`;
  if (payload.message !== undefined) return 'a Message';
  if (payload.statusUpdate !== undefined)
    return `a status update (${payload.statusUpdate.status.state})`;
  return 'an artifact update';
}

/** Why a stream could not be judged: it did not open. */
export function notOpened(run: StreamRun): Verdict | undefined {
  if (run.outcome.kind === 'stream') return undefined;
  return fail(`SendStreamingMessage: the agent ${describeOutcome(run.outcome)}`, run.exchange);
}

/** What is wrong with the events after the first, for the task they began. */
export function eventProblems(events: readonly StreamEventRead[]): string[] {
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

/** Whether the stream closed where it must, as a verdict. */
export function closesVerdict(run: StreamRun, what: string): Verdict {
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
