/**
 * CancelTask (spec 3.1.5): of a running task (the canceled task, or TaskNotCancelableError if it
 * had just finished), of a finished one (TaskNotCancelableError) and of an unknown id
 * (TaskNotFoundError).
 */

import type { A2AErrorType } from '../../protocol/error-codes.js';

import type { Task } from '../../protocol/generated/types.js';
import { isTerminalState } from '../../protocol/task-state.js';
import type { InterfaceCheck } from '../check-implementation.js';
import { unknownTaskId } from '../check-context.js';
import type { CallOutcome } from '../probe/probe.js';
import { describeError, isErrorOfType } from '../probe/wire-error.js';
import {
  describeOutcome,
  expectError,
  fail,
  isUnavailable,
  pass,
  skip,
  type Verdict,
} from '../verdict.js';

function taskOf(outcome: CallOutcome): Task | undefined {
  return outcome.kind === 'result' ? (outcome.value as Task) : undefined;
}

const cancel: InterfaceCheck = {
  id: 'task.cancel',
  async run({ probe, fixtures }) {
    const live = await fixtures.live('cancel');
    if (isUnavailable(live)) return skip(live.unavailable);
    const { task } = live;
    if (isTerminalState(task.status.state))
      return skip(`the agent finished task ${task.id} before it could be canceled`);
    const outcome = await probe.call('CancelTask', { id: task.id });
    const canceled = taskOf(outcome);
    if (canceled !== undefined) {
      if (canceled.id !== task.id)
        return fail(`CancelTask ${task.id} answered the task ${canceled.id}`, outcome.exchange);
      return pass(
        canceled.status.state === 'TASK_STATE_CANCELED'
          ? `task ${task.id} is TASK_STATE_CANCELED`
          : `task ${task.id} is ${canceled.status.state} (the agent may finish its cancellation later, §3.1.5)`,
        outcome.exchange,
      );
    }
    if (outcome.kind === 'error' && isErrorOfType(outcome.error, 'TaskNotCancelableError')) {
      const now = await probe.call('GetTask', { id: task.id });
      const state = taskOf(now)?.status.state;
      if (state !== undefined && isTerminalState(state)) {
        return pass(
          `the task had finished (${state}) before the cancel: ${describeError(outcome.error)}`,
          outcome.exchange,
        );
      }
      return fail(
        `task ${task.id}, ${state ?? 'unreadable'}, was refused cancellation: ${describeError(outcome.error)}`,
        outcome.exchange,
      );
    }
    return fail(
      `CancelTask of the running task ${task.id}: the agent ${describeOutcome(outcome)}`,
      outcome.exchange,
    );
  },
};

function expectOn(id: string, type: A2AErrorType, what: string): InterfaceCheck['run'] {
  return async ({ probe }): Promise<Verdict> => {
    const outcome = await probe.call('CancelTask', { id });
    return expectError(outcome, type, probe.target.binding, what);
  };
}

const cancelTerminal: InterfaceCheck = {
  id: 'task.cancel-terminal',
  async run(context) {
    const finished = await context.fixtures.finished();
    if (isUnavailable(finished)) return skip(finished.unavailable);
    const { task } = finished;
    return expectOn(
      task.id,
      'TaskNotCancelableError',
      `CancelTask of the ${task.status.state} task ${task.id}`,
    )(context);
  },
};

const cancelUnknown: InterfaceCheck = {
  id: 'task.cancel-unknown',
  run: (context) =>
    expectOn(unknownTaskId(), 'TaskNotFoundError', 'CancelTask of an unknown id')(context),
};

/** The checks of canceling tasks. */
export const TASK_CANCEL_CHECKS: readonly InterfaceCheck[] = [
  cancel,
  cancelTerminal,
  cancelUnknown,
];
