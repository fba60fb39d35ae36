/**
 * `tandem subscribe <url> <taskId>`: follows a running task with `SubscribeToTask`, rendered like
 * `tandem stream` from the task's current state on. Ctrl-C detaches and leaves the task running.
 */

import { followStream } from './follow-stream.js';
import { runCommand } from './run-command.js';
import { SHARED_HELP, SHARED_OPTIONS } from './shared-options.js';

const HELP = `Usage: tandem subscribe <url> <taskId> [options]

Follows the task <taskId> live until it settles: its current state and artifacts first, then
each change as it happens, like \`tandem stream\`. Ctrl-C detaches; the task keeps running.

${SHARED_HELP}

With --json, prints each StreamResponse as received, one JSON object per line (NDJSON).

Exit codes: 0 completed or waiting for input; 1 the task failed, was rejected or was canceled;
2 usage error; 3 connection or protocol error (e.g. the task does not exist or has already
finished).`;

/** Runs the command; resolves with the exit code. */
export function run(args: string[]): Promise<number> {
  const spec = { name: 'subscribe', help: HELP, options: SHARED_OPTIONS, required: ['taskId'] };
  return runCommand(spec, args, async ({ args: [taskId = ''], terminal, url, connect }) => {
    const client = await connect();
    return followStream(client.subscribeToTask({ id: taskId }), {
      terminal,
      client,
      url,
      cancelOnInterrupt: false,
    });
  });
}
