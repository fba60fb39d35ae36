/**
 * Reading tasks (spec 3.1.3, 3.2.4, 3.3.2): GetTask of a task and of an unknown id, history
 * limits, and invalid parameters with the field detail they should name.
 */

import { isBadRequestDetail } from '../../protocol/error-details.js';
import type { Task } from '../../protocol/generated/types.js';
import { isTerminalState } from '../../protocol/task-state.js';
import type { InterfaceCheck } from '../check-implementation.js';
import { unknownTaskId, type InterfaceCheckContext } from '../check-context.js';
import type { CallOutcome } from '../probe/probe.js';
import { isErrorOfType } from '../probe/wire-error.js';
import { describeOutcome, expectError, fail, isUnavailable, pass, skip } from '../verdict.js';

function taskOf(outcome: CallOutcome): Task | undefined {
  return outcome.kind === 'result' ? (outcome.value as Task) : undefined;
}

const get: InterfaceCheck = {
  id: 'task.get',
  async run({ probe, fixtures }) {
    const readable = await fixtures.readableTask();
    if (isUnavailable(readable)) return skip(readable.unavailable);
    const known = readable.task;
    const outcome = await probe.call('GetTask', { id: known.id });
    const task = taskOf(outcome);
    if (task === undefined)
      return fail(`GetTask ${known.id}: the agent ${describeOutcome(outcome)}`, outcome.exchange);
    if (task.id !== known.id)
      return fail(`GetTask ${known.id} returned the task ${task.id}`, outcome.exchange);
    if (isTerminalState(known.status.state) && task.status.state !== known.status.state) {
      return fail(
        `task ${known.id} was ${known.status.state}, GetTask says ${task.status.state}`,
        outcome.exchange,
      );
    }
    return pass(`task ${task.id}, ${task.status.state}`, outcome.exchange);
  },
};

const getUnknown: InterfaceCheck = {
  id: 'task.get-unknown',
  async run({ probe }) {
    const outcome = await probe.call('GetTask', { id: unknownTaskId() });
    return expectError(
      outcome,
      'TaskNotFoundError',
      probe.target.binding,
      'GetTask of an unknown id',
    );
  },
};

function rawHistory(outcome: CallOutcome): unknown {
  if (outcome.kind !== 'result') return undefined;
  const raw = outcome.raw as { history?: unknown } | undefined;
  return raw?.history;
}

const historyLength: InterfaceCheck = {
  id: 'task.history-length',
  async run({ probe, fixtures }) {
    const readable = await fixtures.readableTask();
    if (isUnavailable(readable)) return skip(readable.unavailable);
    const id = readable.task.id;
    // 0.3 over gRPC and HTTP+JSON cannot say 0: history_length is a plain proto3 int32 there,
    // and 0 is unset.
    if (probe.target.version === '0.3' && probe.target.binding !== 'JSONRPC') {
      const one = await probe.call('GetTask', { id, historyLength: 1 });
      const oneTask = taskOf(one);
      if (oneTask === undefined)
        return fail(
          `GetTask with historyLength 1: the agent ${describeOutcome(one)}`,
          one.exchange,
        );
      return (oneTask.history?.length ?? 0) > 1
        ? fail(`historyLength 1 returned ${oneTask.history?.length} messages`, one.exchange)
        : pass(
            `historyLength 1: ${oneTask.history?.length ?? 0} message (0 cannot be sent: the 0.3 proto has no presence for it)`,
            one.exchange,
          );
    }
    const none = await probe.call('GetTask', { id, historyLength: 0 });
    const noneTask = taskOf(none);
    if (noneTask === undefined)
      return fail(
        `GetTask with historyLength 0: the agent ${describeOutcome(none)}`,
        none.exchange,
      );
    if ((noneTask.history?.length ?? 0) > 0) {
      return fail(`historyLength 0 returned ${noneTask.history?.length} messages`, none.exchange);
    }
    const one = await probe.call('GetTask', { id, historyLength: 1 });
    const oneTask = taskOf(one);
    if (oneTask === undefined)
      return fail(`GetTask with historyLength 1: the agent ${describeOutcome(one)}`, one.exchange);
    if ((oneTask.history?.length ?? 0) > 1) {
      return fail(`historyLength 1 returned ${oneTask.history?.length} messages`, one.exchange);
    }
    const empty = Array.isArray(rawHistory(none))
      ? ' (historyLength 0 still sends "history": [], which §3.2.4 says to omit)'
      : '';
    return pass(
      `historyLength 0: no history; 1: ${oneTask.history?.length ?? 0} message${empty}`,
      one.exchange,
    );
  },
};

/** The invalid GetTask of an interface, sent once for both checks that judge it. */
const invalid = new WeakMap<
  InterfaceCheckContext['fixtures'],
  ReturnType<InterfaceCheckContext['probe']['invalidGetTask']>
>();

async function invalidGetTask(
  context: InterfaceCheckContext,
): ReturnType<InterfaceCheckContext['probe']['invalidGetTask']> {
  let sent = invalid.get(context.fixtures);
  if (sent === undefined) {
    const readable = context.fixtures.safe ? undefined : await context.fixtures.readableTask();
    const taskId = readable === undefined || isUnavailable(readable) ? undefined : readable.task.id;
    sent = context.probe.invalidGetTask(taskId);
    invalid.set(context.fixtures, sent);
  }
  return sent;
}

const invalidParams: InterfaceCheck = {
  id: 'task.invalid-params',
  async run(context) {
    const { outcome, field } = await invalidGetTask(context);
    return expectError(
      outcome,
      'InvalidParamsError',
      context.probe.target.binding,
      `GetTask with an invalid ${field}`,
    );
  },
};

const invalidParamsDetail: InterfaceCheck = {
  id: 'task.invalid-params-detail',
  async run(context) {
    const { outcome, field } = await invalidGetTask(context);
    if (outcome.kind !== 'error' || !isErrorOfType(outcome.error, 'InvalidParamsError')) {
      return skip(
        'the invalid request was not answered with InvalidParamsError (see task.invalid-params)',
      );
    }
    const badRequest = outcome.error.details.find(isBadRequestDetail);
    if (badRequest === undefined) {
      return fail(
        `InvalidParamsError without a google.rpc.BadRequest detail naming ${field}`,
        outcome.exchange,
      );
    }
    const named = badRequest.fieldViolations.some(
      (v) => v.field === field || v.field.endsWith(`.${field}`) || v.field.startsWith(field),
    );
    return named
      ? pass(
          `BadRequest names ${field}: ${badRequest.fieldViolations.map((v) => `${v.field}: ${v.description}`).join('; ')}`,
          outcome.exchange,
        )
      : fail(
          `BadRequest names ${badRequest.fieldViolations.map((v) => v.field).join(', ') || 'no field'}, not ${field}`,
          outcome.exchange,
        );
  },
};

/** The checks of reading tasks. */
export const TASK_READ_CHECKS: readonly InterfaceCheck[] = [
  get,
  getUnknown,
  historyLength,
  invalidParams,
  invalidParamsDetail,
];
