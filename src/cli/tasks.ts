/**
 * `tandem tasks <url>`: lists tasks with `ListTasks` as a table, newest first as the agent orders
 * them. `--limit` is the number of tasks to show; the command follows `nextPageToken` under the
 * hood until it has that many or the list ends.
 */

import type { ListTasksRequest, ListTasksResponse, Task, TaskState } from '../index.js';
import { parsePositiveInteger, UsageFailure } from './cli-values.js';
import { ExitCode } from './exit-code.js';
import { writeTaskTable } from './render-task.js';
import { runCommand } from './run-command.js';
import { SHARED_HELP, SHARED_OPTIONS } from './shared-options.js';

const OPTIONS = {
  ...SHARED_OPTIONS,
  context: { type: 'string' },
  status: { type: 'string' },
  limit: { type: 'string' },
  'page-token': { type: 'string' },
} as const;

const DEFAULT_LIMIT = 50;
/** The largest page ListTasks serves (spec: pageSize 1..100). */
const MAX_PAGE_SIZE = 100;

const STATES: readonly TaskState[] = [
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
];

const HELP = `Usage: tandem tasks <url> [options]

Lists the tasks of the agent at <url> that the caller may see: id, state, time of the last
status change, and context.

Options:
  --context <id>          Only the tasks of this context
  --status <state>        Only tasks in this state: submitted, working, completed, failed,
                          canceled, input-required, rejected, auth-required (or the full
                          name, e.g. TASK_STATE_WORKING; case does not matter)
  --limit <n>             Show at most <n> tasks (default ${DEFAULT_LIMIT}); pages are fetched as needed
  --page-token <token>    Start from this page (the nextPageToken of an earlier --json output)

${SHARED_HELP}

With --json, prints one ListTasksResponse: the tasks of every page fetched, the nextPageToken of
the last page ("" at the end of the list), pageSize = --limit, and the agent's totalSize.

Exit codes: 0 listed, 2 usage error, 3 connection or protocol error.`;

/** Reads `--status`: `working`, `input-required`, `TASK_STATE_WORKING`... in any case. */
export function parseTaskState(value: string): TaskState {
  const name = value.trim().toUpperCase().replace(/-/g, '_');
  const state = (name.startsWith('TASK_STATE_') ? name : `TASK_STATE_${name}`) as TaskState;
  if (!STATES.includes(state)) {
    throw new UsageFailure(
      `--status must be one of submitted, working, completed, failed, canceled, input-required, rejected, auth-required; got "${value}"`,
    );
  }
  return state;
}

/** Fetches pages until `limit` tasks are collected or the list ends. */
async function collect(
  list: (request: ListTasksRequest) => Promise<ListTasksResponse>,
  filter: ListTasksRequest,
  limit: number,
): Promise<ListTasksResponse> {
  const tasks: Task[] = [];
  let pageToken = filter.pageToken;
  let totalSize: number | undefined;
  for (;;) {
    const page = await list({
      ...filter,
      pageSize: Math.min(limit - tasks.length, MAX_PAGE_SIZE),
      ...(pageToken === undefined ? {} : { pageToken }),
    });
    totalSize ??= page.totalSize;
    tasks.push(...page.tasks.slice(0, limit - tasks.length));
    pageToken = page.nextPageToken;
    if (tasks.length >= limit || pageToken === '' || page.tasks.length === 0) {
      return { tasks, nextPageToken: pageToken, pageSize: limit, totalSize };
    }
  }
}

/** Runs the command; resolves with the exit code. */
export function run(args: string[]): Promise<number> {
  const spec = { name: 'tasks', help: HELP, options: OPTIONS };
  return runCommand(spec, args, async ({ values, terminal, connect }) => {
    const limit =
      values.limit === undefined ? DEFAULT_LIMIT : parsePositiveInteger(values.limit, '--limit');
    const filter: ListTasksRequest = {
      ...(values.context === undefined ? {} : { contextId: values.context }),
      ...(values.status === undefined ? {} : { status: parseTaskState(values.status) }),
      ...(values['page-token'] === undefined ? {} : { pageToken: values['page-token'] }),
    };
    const client = await connect();
    const result = await collect((request) => client.listTasks(request), filter, limit);
    if (terminal.json) {
      terminal.jsonDocument(result);
      return ExitCode.Success;
    }
    if (result.tasks.length === 0) {
      terminal.line('No tasks.');
      return ExitCode.Success;
    }
    writeTaskTable(terminal, result.tasks);
    if (result.totalSize > result.tasks.length) {
      terminal.error(
        terminal.style.dim(
          `(${result.tasks.length} of ${result.totalSize} tasks; show more with --limit)`,
        ),
      );
    }
    return ExitCode.Success;
  });
}
