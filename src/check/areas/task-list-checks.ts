/**
 * ListTasks (spec 3.1.4): a valid page, most recently updated first, artifacts only when asked;
 * cursors that page through a context of two tasks to an empty last token; filters by context
 * and status.
 */

import type { ListTasksResponse, Task } from '../../protocol/generated/types.js';

import type { InterfaceCheck } from '../check-implementation.js';
import { type InterfaceCheckContext } from '../check-context.js';
import type { CallOutcome } from '../probe/probe.js';

import { describeOutcome, fail, isUnavailable, pass, skip } from '../verdict.js';

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

/** The checks of listing tasks. */
export const TASK_LIST_CHECKS: readonly InterfaceCheck[] = [list, listPagination, listFilter];
