/**
 * Messages (spec 3.1.1, 3.2.2, 3.4): what SendMessage returns and with which ids, blocking and
 * `returnImmediately`, messages to unknown and to finished tasks, and multi-turn — a message with
 * the `taskId` of an interrupted task continues it, a `contextId` without `taskId` starts a new
 * task in that context, a `taskId` with another context's `contextId` is refused.
 */

import type { Message, SendMessageResponse, Task } from '../../protocol/generated/types.js';
import { isFinalOrInterruptedState, isTerminalState } from '../../protocol/task-state.js';
import type { InterfaceCheck } from '../check-implementation.js';
import { unknownTaskId, userMessage } from '../check-context.js';
import { describeError } from '../probe/wire-error.js';
import { describeOutcome, expectError, fail, isUnavailable, pass, skip } from '../verdict.js';

function responseOf(value: unknown): { task?: Task; message?: Message } {
  return value as SendMessageResponse;
}

const send: InterfaceCheck = {
  id: 'message.send',
  async run({ fixtures }) {
    const outcome = await fixtures.sent();
    if (isUnavailable(outcome)) return skip(outcome.unavailable);
    if (outcome.kind !== 'result')
      return fail(`SendMessage: the agent ${describeOutcome(outcome)}`, outcome.exchange);
    const { task, message } = responseOf(outcome.value);
    if (task !== undefined) {
      return pass(`a Task, id ${task.id}, ${task.status.state}`, outcome.exchange);
    }
    return message !== undefined
      ? pass(`a Message, id ${message.messageId}`, outcome.exchange)
      : fail('the result is neither a Task nor a Message', outcome.exchange);
  },
};

const blocking: InterfaceCheck = {
  id: 'message.blocking',
  async run({ fixtures }) {
    const sent = await fixtures.sentTask();
    if (isUnavailable(sent)) return skip(sent.unavailable);
    const state = sent.task.status.state;
    return isFinalOrInterruptedState(state)
      ? pass(`the blocking SendMessage returned the task ${state}`, sent.outcome.exchange)
      : fail(
          `a blocking SendMessage returned the task while it was ${state}, not yet terminal or interrupted`,
          sent.outcome.exchange,
        );
  },
};

const returnImmediately: InterfaceCheck = {
  id: 'message.return-immediately',
  async run({ fixtures }) {
    const live = await fixtures.live('cancel');
    if (isUnavailable(live)) return skip(live.unavailable);
    const state = live.task.status.state;
    return pass(
      isTerminalState(state)
        ? `a Task, already ${state} (the agent finished it before answering)`
        : `a Task, ${state}, returned while it goes on`,
      live.outcome.exchange,
    );
  },
};

const contextId: InterfaceCheck = {
  id: 'message.context-id',
  async run({ fixtures }) {
    const outcome = await fixtures.sent();
    if (isUnavailable(outcome)) return skip(outcome.unavailable);
    if (outcome.kind !== 'result')
      return skip('SendMessage was not answered with a result (see message.send)');
    const { task, message } = responseOf(outcome.value);
    const what = task !== undefined ? `the task ${task.id}` : 'the message';
    const id = task?.contextId ?? message?.contextId;
    return id === undefined || id === ''
      ? fail(
          `${what} carries no contextId, though the agent created it for a message without one`,
          outcome.exchange,
        )
      : pass(`contextId ${id}`, outcome.exchange);
  },
};

const unknownTask: InterfaceCheck = {
  id: 'message.unknown-task',
  async run(context) {
    if (context.fixtures.safe) return skip('--safe: the checker sends no message');
    const outcome = await context.probe.call('SendMessage', {
      message: userMessage(context, { taskId: unknownTaskId() }),
    });
    return expectError(
      outcome,
      'TaskNotFoundError',
      context.probe.target.binding,
      'a message with an unknown taskId',
    );
  },
};

const terminalTask: InterfaceCheck = {
  id: 'message.terminal-task',
  async run(context) {
    const finished = await context.fixtures.finished();
    if (isUnavailable(finished)) return skip(finished.unavailable);
    const { task } = finished;
    const outcome = await context.probe.call('SendMessage', {
      message: userMessage(context, {
        taskId: task.id,
        ...(task.contextId === undefined ? {} : { contextId: task.contextId }),
      }),
    });
    const what = `a message to the ${task.status.state} task ${task.id}`;
    if (context.probe.target.version === '0.3') {
      // 0.3 (section 7.1) asks for an error, without naming it.
      return outcome.kind === 'error'
        ? pass(`${what} is refused: ${describeError(outcome.error)}`, outcome.exchange)
        : fail(`${what}: the agent ${describeOutcome(outcome)}`, outcome.exchange);
    }
    return expectError(outcome, 'UnsupportedOperationError', context.probe.target.binding, what);
  },
};

const contextMismatch: InterfaceCheck = {
  id: 'message.context-mismatch',
  async run(context) {
    const interrupted = await context.fixtures.interrupted();
    if (isUnavailable(interrupted)) return skip(interrupted.unavailable);
    const { task } = interrupted;
    const outcome = await context.probe.call('SendMessage', {
      message: userMessage(context, {
        taskId: task.id,
        contextId: `tandem-check-other-context-${crypto.randomUUID()}`,
      }),
    });
    return outcome.kind === 'error'
      ? pass(`refused: ${describeError(outcome.error)}`, outcome.exchange)
      : fail(
          `a message with task ${task.id} and another contextId: the agent ${describeOutcome(outcome)}`,
          outcome.exchange,
        );
  },
};

const multiTurn: InterfaceCheck = {
  id: 'message.multi-turn',
  async run(context) {
    const interrupted = await context.fixtures.interrupted();
    if (isUnavailable(interrupted)) return skip(interrupted.unavailable);
    const { task } = interrupted;
    const outcome = await context.probe.call('SendMessage', {
      message: userMessage(context, {
        prefix: 'tck-complete-task',
        taskId: task.id,
        ...(task.contextId === undefined ? {} : { contextId: task.contextId }),
      }),
    });
    if (outcome.kind !== 'result')
      return fail(
        `the answer to task ${task.id}: the agent ${describeOutcome(outcome)}`,
        outcome.exchange,
      );
    const answer = responseOf(outcome.value);
    const id = answer.task?.id ?? answer.message?.taskId;
    return id === task.id
      ? pass(
          `the message continued task ${task.id} (now ${answer.task?.status.state ?? 'answered with a message'})`,
          outcome.exchange,
        )
      : fail(
          `the message with taskId ${task.id} was answered by ${answer.task === undefined ? 'a message of no task' : `another task, ${answer.task.id}`}`,
          outcome.exchange,
        );
  },
};

const contextContinues: InterfaceCheck = {
  id: 'message.context-continues',
  async run(context) {
    const pair = await context.fixtures.contextPair();
    if (isUnavailable(pair)) return skip(pair.unavailable);
    const { task } = pair.first;
    const outcome = pair.second;
    if (outcome.kind === 'error') {
      return pass(
        `refused (an agent may refuse a contextId it cannot accept, §3.4.1): ${describeError(outcome.error)}`,
        outcome.exchange,
      );
    }
    if (outcome.kind !== 'result')
      return fail(
        `a message in context ${task.contextId ?? ''}: the agent ${describeOutcome(outcome)}`,
        outcome.exchange,
      );
    const answer = responseOf(outcome.value);
    const answered = answer.task?.contextId ?? answer.message?.contextId;
    if (answered !== task.contextId) {
      return fail(
        `a message in context ${task.contextId ?? ''} was answered in context ${answered ?? '(none)'}; the agent must keep it or refuse it`,
        outcome.exchange,
      );
    }
    if (answer.task?.id === task.id) {
      return fail(
        `a message with only the contextId was added to the finished task ${task.id} instead of starting a new one`,
        outcome.exchange,
      );
    }
    return pass(
      answer.task === undefined
        ? `a Message in context ${answered}`
        : `a new task ${answer.task.id} in context ${answered}`,
      outcome.exchange,
    );
  },
};

/** The checks of this area. */
export const MESSAGE_CHECKS: readonly InterfaceCheck[] = [
  send,
  blocking,
  returnImmediately,
  contextId,
  unknownTask,
  terminalTask,
  contextMismatch,
  multiTurn,
  contextContinues,
];
