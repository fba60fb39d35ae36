/**
 * Tasks (spec 3.1.3-3.1.5, 3.2.4, 3.3.2): GetTask of a task and of an unknown id, history
 * limits, invalid parameters and the field detail they should name, ListTasks (a valid page,
 * newest first, artifacts only when asked, cursors, filters), and CancelTask of a running, a
 * finished and an unknown task.
 */

import type { A2AErrorType } from '../../protocol/error-codes.js';
import { isBadRequestDetail } from '../../protocol/error-details.js';
import type { ListTasksResponse, Task } from '../../protocol/generated/types.js';
import { isTerminalState } from '../../protocol/task-state.js';
import type { InterfaceCheck } from '../check-implementation.js';
import { unknownTaskId, type InterfaceCheckContext } from '../check-context.js';
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

function listOf(outcome: CallOutcome): ListTasksResponse | undefined {
  return outcome.kind === 'result' ? (outcome.value as ListTasksResponse) : undefined;
}

function timeOf(task: Task): number | undefined {
  const time = task.status.timestamp;
  return time === undefined ? undefined : Date.parse(time);
}

const list: InterfaceCheck = {
  id: 'task.list',
  async run({ probe }) {
    const outcome = await probe.call('ListTasks', { pageSize: 50 });
    const page = listOf(outcome);
    if (page === undefined)
      return fail(`ListTasks: the agent ${describeOutcome(outcome)}`, outcome.exchange);
    for (let i = 1; i < page.tasks.length; i++) {
      const [before, after] = [timeOf(page.tasks[i - 1] as Task), timeOf(page.tasks[i] as Task)];
      if (before !== undefined && after !== undefined && after > before) {
        return fail(
          `the tasks are not ordered most recently updated first: ${page.tasks[i - 1]?.id} (${page.tasks[i - 1]?.status.timestamp}) comes before ${page.tasks[i]?.id} (${page.tasks[i]?.status.timestamp})`,
          outcome.exchange,
        );
      }
    }
    if (probe.target.binding !== 'GRPC' && outcome.kind === 'result') {
      const raw = outcome.raw as { tasks?: unknown[] };
      const withArtifacts = (raw.tasks ?? []).filter(
        (t) => typeof t === 'object' && t !== null && 'artifacts' in t,
      );
      if (withArtifacts.length > 0) {
        return fail(
          `${withArtifacts.length} task(s) carry "artifacts" although includeArtifacts was not set (§3.1.4: the field MUST be omitted)`,
          outcome.exchange,
        );
      }
    } else if (page.tasks.some((t) => (t.artifacts?.length ?? 0) > 0)) {
      return fail('tasks carry artifacts although includeArtifacts was not set', outcome.exchange);
    }
    return pass(
      `${page.tasks.length} task(s) of ${page.totalSize}, ordered, without artifacts`,
      outcome.exchange,
    );
  },
};

/** The context to page and filter in: the one of the context pair, with at least two tasks. */
async function listContext(
  context: InterfaceCheckContext,
): Promise<{ contextId: string; ids: string[] } | { unavailable: string }> {
  const pair = await context.fixtures.contextPair();
  if (isUnavailable(pair)) return pair;
  const second =
    pair.second.kind === 'result' ? (pair.second.value as { task?: Task }).task : undefined;
  const contextId = pair.first.task.contextId ?? '';
  if (second === undefined || second.contextId !== contextId || second.id === pair.first.task.id) {
    return {
      unavailable: `the agent made no second task in context ${contextId} (see message.context-continues)`,
    };
  }
  return { contextId, ids: [pair.first.task.id, second.id] };
}

const listPagination: InterfaceCheck = {
  id: 'task.list-pagination',
  async run(context) {
    const { probe } = context;
    const scope = await listContext(context);
    if (isUnavailable(scope)) return skip(scope.unavailable);
    const first = await probe.call('ListTasks', { contextId: scope.contextId, pageSize: 1 });
    const page1 = listOf(first);
    if (page1 === undefined)
      return fail(`ListTasks with pageSize 1: the agent ${describeOutcome(first)}`, first.exchange);
    if (page1.tasks.length !== 1)
      return fail(
        `pageSize 1 returned ${page1.tasks.length} tasks of the context's ${scope.ids.length}`,
        first.exchange,
      );
    if (page1.nextPageToken === '')
      return fail(
        `the first page of ${scope.ids.length} tasks at pageSize 1 has an empty nextPageToken`,
        first.exchange,
      );
    const second = await probe.call('ListTasks', {
      contextId: scope.contextId,
      pageSize: 1,
      pageToken: page1.nextPageToken,
    });
    const page2 = listOf(second);
    if (page2 === undefined)
      return fail(
        `ListTasks with the nextPageToken: the agent ${describeOutcome(second)}`,
        second.exchange,
      );
    if (page2.tasks.length !== 1 || page2.tasks[0]?.id === page1.tasks[0]?.id) {
      return fail(
        `the second page does not hold the next task (it holds ${page2.tasks.map((t) => t.id).join(', ') || 'none'})`,
        second.exchange,
      );
    }
    const whole = await probe.call('ListTasks', { contextId: scope.contextId, pageSize: 100 });
    const all = listOf(whole);
    if (all === undefined)
      return fail(`ListTasks of the context: the agent ${describeOutcome(whole)}`, whole.exchange);
    if (all.nextPageToken !== '') {
      return fail(
        `the last page (${all.tasks.length} tasks, pageSize 100) has nextPageToken ${JSON.stringify(all.nextPageToken)}, not ""`,
        whole.exchange,
      );
    }
    return pass(
      `pages of 1 follow each other; the last page's nextPageToken is ""`,
      second.exchange,
    );
  },
};

const listFilter: InterfaceCheck = {
  id: 'task.list-filter',
  async run(context) {
    const { probe } = context;
    const scope = await listContext(context);
    if (isUnavailable(scope)) return skip(scope.unavailable);
    const byContext = await probe.call('ListTasks', { contextId: scope.contextId, pageSize: 100 });
    const page = listOf(byContext);
    if (page === undefined)
      return fail(
        `ListTasks by contextId: the agent ${describeOutcome(byContext)}`,
        byContext.exchange,
      );
    const stranger = page.tasks.find((t) => t.contextId !== scope.contextId);
    if (stranger !== undefined)
      return fail(
        `filtering by contextId ${scope.contextId} returned task ${stranger.id} of context ${stranger.contextId ?? '(none)'}`,
        byContext.exchange,
      );
    const missing = scope.ids.filter((id) => !page.tasks.some((t) => t.id === id));
    if (missing.length > 0)
      return fail(
        `filtering by its contextId leaves out task ${missing.join(', ')}`,
        byContext.exchange,
      );
    const first = page.tasks.find((t) => t.id === scope.ids[0]) as Task;
    const state = first.status.state;
    const byStatus = await probe.call('ListTasks', {
      contextId: scope.contextId,
      status: state,
      pageSize: 100,
    });
    const filtered = listOf(byStatus);
    if (filtered === undefined)
      return fail(`ListTasks by status: the agent ${describeOutcome(byStatus)}`, byStatus.exchange);
    const other = filtered.tasks.find((t) => t.status.state !== state);
    if (other !== undefined)
      return fail(
        `filtering by status ${state} returned task ${other.id}, ${other.status.state}`,
        byStatus.exchange,
      );
    if (!filtered.tasks.some((t) => t.id === first.id))
      return fail(`filtering by status ${state} leaves out task ${first.id}`, byStatus.exchange);
    return pass(
      `contextId and status filters hold (${page.tasks.length} and ${filtered.tasks.length} tasks)`,
      byStatus.exchange,
    );
  },
};

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

/** The checks of this area. */
export const TASK_CHECKS: readonly InterfaceCheck[] = [
  get,
  getUnknown,
  historyLength,
  invalidParams,
  invalidParamsDetail,
  list,
  listPagination,
  listFilter,
  cancel,
  cancelTerminal,
  cancelUnknown,
];
