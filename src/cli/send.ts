/**
 * `tandem send <url> <text...>`: sends one message with `SendMessage` and prints the agent's
 * answer — the artifacts' content and the final status message, or the agent's direct message.
 * The exit code says how the task ended, so that scripts can branch on it.
 */

import { writeParts, stateLabel, writeTaskAnswer } from './render-task.js';
import { ExitCode } from './exit-code.js';
import { INLINE_PUSH_HELP, INLINE_PUSH_OPTIONS, inlinePushConfigOf } from './inline-push.js';
import { exitOnInterrupt } from './interrupts.js';
import { buildMessage, MESSAGE_HELP, MESSAGE_OPTIONS } from './message-input.js';
import { runCommand } from './run-command.js';
import { SHARED_HELP, SHARED_OPTIONS } from './shared-options.js';
import { reportOutcome } from './task-outcome.js';

const OPTIONS = {
  ...SHARED_OPTIONS,
  ...MESSAGE_OPTIONS,
  ...INLINE_PUSH_OPTIONS,
  'no-wait': { type: 'boolean' },
} as const;

const HELP = `Usage: tandem send <url> <text...> [options]

Sends <text> (the remaining words, joined by spaces) to the agent at <url> and prints its answer:
the text of its artifacts, data parts as JSON, files as one line each, and the final status
message (the result, a question, or why the task failed).

Options:
${MESSAGE_HELP}
${INLINE_PUSH_HELP}
  --no-wait               Return as soon as the task is created (returnImmediately) and print
                          its id and state; follow it with \`tandem subscribe\` or \`tandem get\`

${SHARED_HELP}

With --json, prints the SendMessageResponse as received: {"task": {...}} or {"message": {...}}.

Exit codes: 0 completed, waiting for input or answered with a message; 1 the task failed, was
rejected or was canceled; 2 usage error; 3 connection or protocol error.`;

/** Runs the command; resolves with the exit code. */
export function run(args: string[]): Promise<number> {
  const spec = { name: 'send', help: HELP, options: OPTIONS, variadic: true };
  return runCommand(spec, args, async ({ values, args: words, terminal, url, connect }) => {
    const message = await buildMessage(values, words);
    const push = inlinePushConfigOf(values);
    const configuration = {
      ...(values['no-wait'] === true ? { returnImmediately: true } : {}),
      ...(push === undefined ? {} : { taskPushNotificationConfig: push }),
    };
    const client = await connect();
    const stopListening = exitOnInterrupt(terminal);
    terminal.activity('waiting for the agent…');
    const response = await client
      .sendMessage({
        message,
        ...(Object.keys(configuration).length === 0 ? {} : { configuration }),
      })
      .finally(() => {
        stopListening();
        terminal.activity(undefined);
      });
    if (terminal.json) terminal.jsonDocument(response);
    if (response.message !== undefined) {
      if (!terminal.json) writeParts(terminal, response.message.parts);
      return ExitCode.Success;
    }
    const { task } = response;
    const { state } = task.status;
    if (state === 'TASK_STATE_SUBMITTED' || state === 'TASK_STATE_WORKING') {
      if (!terminal.json) {
        terminal.line(`task ${task.id} ${stateLabel(state)}`);
        terminal.error(terminal.style.dim(`(follow it with: tandem subscribe ${url} ${task.id})`));
      }
      return ExitCode.Success;
    }
    if (!terminal.json) writeTaskAnswer(terminal, task);
    return reportOutcome(terminal, { url, taskId: task.id, state });
  });
}
