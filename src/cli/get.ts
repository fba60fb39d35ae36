/**
 * `tandem get <url> <taskId>`: prints a task with `GetTask` — its state, status message, history
 * and artifacts.
 */

import { parseNonNegativeInteger } from './cli-values.js';
import { ExitCode } from './exit-code.js';
import { writeTaskDetails } from './render-task.js';
import { runCommand } from './run-command.js';
import { SHARED_HELP, SHARED_OPTIONS } from './shared-options.js';

const OPTIONS = { ...SHARED_OPTIONS, history: { type: 'string' } } as const;

const HELP = `Usage: tandem get <url> <taskId> [options]

Prints the task <taskId>: its context, state and status message, its history (the messages
exchanged) and its artifacts.

Options:
  --history <n>           Show at most the last <n> messages of the history (0: none)

${SHARED_HELP}

With --json, prints the Task as received.

Exit codes: 0 the task was found (whatever its state), 2 usage error, 3 connection or protocol
error (e.g. TaskNotFoundError).`;

/** Runs the command; resolves with the exit code. */
export function run(args: string[]): Promise<number> {
  const spec = { name: 'get', help: HELP, options: OPTIONS, required: ['taskId'] };
  return runCommand(spec, args, async ({ values, args: [taskId = ''], terminal, connect }) => {
    const historyLength =
      values.history === undefined
        ? undefined
        : parseNonNegativeInteger(values.history, '--history');
    const client = await connect();
    const task = await client.getTask({
      id: taskId,
      ...(historyLength === undefined ? {} : { historyLength }),
    });
    if (terminal.json) terminal.jsonDocument(task);
    else writeTaskDetails(terminal, task);
    return ExitCode.Success;
  });
}
