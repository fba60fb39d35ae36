/**
 * What a command prints and returns when it fails: one line on stderr, no stack trace, and the
 * exit code of the failure's family — 2 for the command line, 3 for the connection or the
 * protocol (an A2A error the agent answered included), 1 for a task that failed. The line leads
 * with the error's type and code, because that is what a user searches for.
 */

import {
  AgentCardError,
  CallTimeoutError,
  ConnectionError,
  NoCompatibleInterfaceError,
  ProtocolViolationError,
} from '../client.js';
import { isA2AError, type TaskState } from '../index.js';
import { UsageFailure } from './cli-values.js';
import { ExitCode } from './exit-code.js';

/** A failure as the user sees it. */
export interface Failure {
  readonly exitCode: number;
  /** One line, without the `tandem:` prefix. */
  readonly message: string;
}

/** Collapses whitespace so that a message stays on one line. */
export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/**
 * The message of an unexpected error plus the messages of its causes that it does not already
 * contain. (The client's own errors already say what went wrong and what to do.)
 */
function withCauses(error: Error): string {
  let message = error.message;
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 3 && cause instanceof Error; depth++) {
    if (cause.message !== '' && !message.includes(cause.message)) {
      message += `: ${cause.message}`;
    }
    cause = cause.cause;
  }
  return oneLine(message);
}

/** Whether the error is, or was caused by, a call running out of time. */
function timedOut(error: Error): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    if (current instanceof CallTimeoutError) return true;
    current = current.cause;
  }
  return false;
}

/** Maps any error a command meets to its exit code and one-line message. */
export function failureOf(error: unknown): Failure {
  if (error instanceof UsageFailure) {
    return { exitCode: ExitCode.Usage, message: oneLine(error.message) };
  }
  if (isA2AError(error)) {
    return {
      exitCode: ExitCode.Connection,
      message: `${error.type} (${error.code}): ${oneLine(error.message)}`,
    };
  }
  if (
    error instanceof ConnectionError ||
    error instanceof AgentCardError ||
    error instanceof NoCompatibleInterfaceError
  ) {
    const hint = timedOut(error) ? '; allow more time with --timeout' : '';
    return {
      exitCode: ExitCode.Connection,
      message: `${error.name}: ${oneLine(error.message)}${hint}`,
    };
  }
  if (error instanceof ProtocolViolationError) {
    const message = oneLine(error.message);
    const first = error.violations[0];
    const detail =
      first === undefined || message.includes(first.field)
        ? ''
        : ` (${first.field}: ${first.description})`;
    return {
      exitCode: ExitCode.Connection,
      message: `ProtocolViolationError: ${message}${detail}`,
    };
  }
  if (error instanceof Error) {
    return { exitCode: ExitCode.Connection, message: `${error.name}: ${withCauses(error)}` };
  }
  return { exitCode: ExitCode.Connection, message: oneLine(String(error)) };
}

/**
 * The exit code of a task that reached `state`: 1 when it failed, was rejected or was canceled,
 * 0 when it completed or waits for the user (input or authentication).
 */
export function exitCodeOfState(state: TaskState): number {
  switch (state) {
    case 'TASK_STATE_FAILED':
    case 'TASK_STATE_REJECTED':
    case 'TASK_STATE_CANCELED':
      return ExitCode.TaskFailed;
    case 'TASK_STATE_COMPLETED':
    case 'TASK_STATE_INPUT_REQUIRED':
    case 'TASK_STATE_AUTH_REQUIRED':
    case 'TASK_STATE_SUBMITTED':
    case 'TASK_STATE_WORKING':
    case 'TASK_STATE_UNSPECIFIED':
      return ExitCode.Success;
  }
}
