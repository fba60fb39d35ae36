/**
 * Following one event stream to its end, shared by `stream` (a new message) and `subscribe` (an
 * existing task): NDJSON or live rendering, the spinner while the agent works, Ctrl-C, and the
 * exit code of the state the task settled in.
 */

import { ConnectionError, type A2AClient } from '../client.js';
import type { StreamResponse } from '../index.js';
import { CommandFailure, failureOf } from './errors-to-exit.js';
import { ExitCode } from './exit-code.js';
import { exitInterrupted, onInterrupt } from './interrupts.js';
import { EventRenderer } from './render-events.js';
import { stateLabel } from './render-task.js';
import { reportOutcome } from './task-outcome.js';
import type { Terminal } from './terminal.js';

/** How to follow a stream. */
export interface FollowOptions {
  readonly terminal: Terminal;
  readonly client: A2AClient;
  /** The agent URL, for hints. */
  readonly url: string;
  /**
   * Whether the first Ctrl-C cancels the task on the server (`stream`: the user started it) or
   * detaches at once (`subscribe`: someone else's task may be running). A second Ctrl-C always
   * exits.
   */
  readonly cancelOnInterrupt: boolean;
}

/** Renders the stream until it ends and returns the command's exit code. */
export async function followStream(
  stream: AsyncIterable<StreamResponse>,
  options: FollowOptions,
): Promise<number> {
  const { terminal, client, url } = options;
  const renderer = new EventRenderer(terminal, 'stream');
  let canceling = false;
  const stopListening = onInterrupt(() => {
    const taskId = renderer.taskId;
    if (!options.cancelOnInterrupt && taskId !== undefined && !renderer.settled) {
      terminal.interruptNotice(
        `tandem: detached; the task keeps running (follow it again with: tandem subscribe ${url} ${taskId})`,
      );
      exitInterrupted(terminal);
    }
    if (!options.cancelOnInterrupt || canceling || taskId === undefined || renderer.settled) {
      exitInterrupted(terminal);
    }
    canceling = true;
    terminal.interruptNotice(
      terminal.style.dim(`canceling task ${taskId}… (Ctrl-C again to quit)`),
    );
    client.cancelTask({ id: taskId }).catch((error: unknown) => {
      terminal.error(`tandem: the task could not be canceled: ${failureOf(error).message}`);
    });
  });
  terminal.activity('waiting for the agent…');
  try {
    for await (const event of stream) {
      if (terminal.json) terminal.jsonLine(event);
      renderer.render(event);
    }
  } catch (error) {
    const taskId = renderer.taskId;
    if (!(error instanceof ConnectionError) || taskId === undefined || renderer.settled)
      throw error;
    // The server went away mid-task; the task itself may well go on.
    const { exitCode, message } = failureOf(error);
    throw new CommandFailure(
      {
        exitCode,
        message: `${message}; the task may still be running: follow it with tandem subscribe ${url} ${taskId}`,
      },
      { cause: error },
    );
  } finally {
    stopListening();
    renderer.finish();
  }
  if (renderer.answeredWithMessage) return ExitCode.Success;
  const state = renderer.lastState;
  if (state === undefined || !renderer.settled) {
    const where =
      state === undefined ? 'before any event' : `while the task was ${stateLabel(state)}`;
    const follow =
      renderer.taskId === undefined
        ? ''
        : `; follow it with: tandem subscribe ${url} ${renderer.taskId}`;
    terminal.error(`tandem: the stream ended ${where}${follow}`);
    return ExitCode.Connection;
  }
  return reportOutcome(terminal, { url, taskId: renderer.taskId, state });
}
