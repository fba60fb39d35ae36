/**
 * `tandem stream <url> <text...>`: sends one message with `SendStreamingMessage` and renders the
 * task live — state changes, artifact text as it arrives, a spinner while the agent works — up
 * to its final state. Ctrl-C cancels the task on the server; a second Ctrl-C quits at once.
 */

import { followStream } from './follow-stream.js';
import { INLINE_PUSH_HELP, INLINE_PUSH_OPTIONS, inlinePushConfigOf } from './inline-push.js';
import { buildMessage, MESSAGE_HELP, MESSAGE_OPTIONS } from './message-input.js';
import { runCommand } from './run-command.js';
import { SHARED_HELP, SHARED_OPTIONS } from './shared-options.js';

const OPTIONS = { ...SHARED_OPTIONS, ...MESSAGE_OPTIONS, ...INLINE_PUSH_OPTIONS } as const;

const HELP = `Usage: tandem stream <url> <text...> [options]

Sends <text> to the agent at <url> and shows the task as it runs: each state change on its own
line, artifact text appended in place as its chunks arrive, data parts as JSON, and the final
state at the end. Ctrl-C cancels the task on the server (a second Ctrl-C quits at once).

Options:
${MESSAGE_HELP}
${INLINE_PUSH_HELP}

${SHARED_HELP}

With --json, prints each StreamResponse as received, one JSON object per line (NDJSON).

Exit codes: 0 completed, waiting for input or answered with a message; 1 the task failed, was
rejected or was canceled; 2 usage error; 3 connection or protocol error, or the stream ended
before the task settled.`;

/** Runs the command; resolves with the exit code. */
export function run(args: string[]): Promise<number> {
  const spec = { name: 'stream', help: HELP, options: OPTIONS, variadic: true };
  return runCommand(spec, args, async ({ values, args: words, terminal, url, connect }) => {
    const message = await buildMessage(values, words);
    const push = inlinePushConfigOf(values);
    const client = await connect();
    const request = {
      message,
      ...(push === undefined ? {} : { configuration: { taskPushNotificationConfig: push } }),
    };
    return followStream(client.sendStreamingMessage(request), {
      terminal,
      client,
      url,
      cancelOnInterrupt: true,
    });
  });
}
