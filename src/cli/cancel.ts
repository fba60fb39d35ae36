/**
 * `tandem cancel <url> <taskId>`: asks the agent to cancel a task with `CancelTask` and prints
 * the task as the agent answered. A task that has already finished cannot be canceled: that is
 * the task's outcome, not a connection problem, so it exits 1.
 */

import { TaskNotCancelableError } from '../index.js';
import { ExitCode } from './exit-code.js';
import { oneLine, type Failure } from './errors-to-exit.js';
import { writeTaskDetails } from './render-task.js';
import { runCommand } from './run-command.js';
import { SHARED_HELP, SHARED_OPTIONS } from './shared-options.js';

const HELP = `Usage: tandem cancel <url> <taskId> [options]

Cancels the task <taskId> and prints it as the agent answered (normally canceled).

${SHARED_HELP}

With --json, prints the Task as received.

Exit codes: 0 canceled, 1 the task cannot be canceled (TaskNotCancelableError: it has already
finished), 2 usage error, 3 connection or protocol error (e.g. TaskNotFoundError).`;

function notCancelable(error: unknown): Failure | undefined {
  if (!(error instanceof TaskNotCancelableError)) return undefined;
  return {
    exitCode: ExitCode.TaskFailed,
    message: `${error.type} (${error.code}): ${oneLine(error.message)}`,
  };
}

/** Runs the command; resolves with the exit code. */
export function run(args: string[]): Promise<number> {
  const spec = {
    name: 'cancel',
    help: HELP,
    options: SHARED_OPTIONS,
    required: ['taskId'],
    failureOf: notCancelable,
  };
  return runCommand(spec, args, async ({ args: [taskId = ''], terminal, connect }) => {
    const client = await connect();
    const task = await client.cancelTask({ id: taskId });
    if (terminal.json) terminal.jsonDocument(task);
    else writeTaskDetails(terminal, task);
    return ExitCode.Success;
  });
}
