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
  HttpStatusError,
  NoCompatibleInterfaceError,
  ProtocolViolationError,
} from '../client.js';
import { isA2AError, type TaskState } from '../index.js';
import { refusalMessage, type CallSituation } from './access-refusal.js';
import { UsageFailure } from './cli-values.js';
import { ExitCode } from './exit-code.js';

/** A failure as the user sees it. */
export interface Failure {
  readonly exitCode: number;
  /** One line, without the `tandem:` prefix. */
  readonly message: string;
}

/**
 * An error whose failure a command has already put in words (a hint only it can give), passed
 * up to the shared frame to be printed like any other.
 */
export class CommandFailure extends Error {
  override readonly name = 'CommandFailure';
  constructor(
    readonly failure: Failure,
    options?: { cause?: unknown },
  ) {
    super(failure.message, options);
  }
}

/** `--json`'s form of a failure: one object on stdout, beside the line on stderr. */
export interface JsonFailure {
  readonly error: {
    /** The error's type: an A2A error's (`TaskNotFoundError`), else the client's class name. */
    readonly type: string;
    /** The A2A error code, for an A2A error. */
    readonly code?: number;
    readonly message: string;
    readonly exitCode: number;
  };
}

/** The JSON object of a failure, for `--json`. */
export function jsonFailureOf(error: unknown, failure: Failure): JsonFailure {
  const cause = error instanceof CommandFailure ? error.cause : error;
  const type = isA2AError(cause)
    ? cause.type
    : cause instanceof UsageFailure
      ? 'UsageError'
      : cause instanceof Error
        ? cause.name
        : 'Error';
  return {
    error: {
      type,
      ...(isA2AError(cause) ? { code: cause.code } : {}),
      message: failure.message,
      exitCode: failure.exitCode,
    },
  };
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

/** The HTTP status error that is, or caused, `error` (a card fetch wraps it). */
function httpStatusOf(error: unknown): HttpStatusError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    if (current instanceof HttpStatusError) return current;
    current = current.cause;
  }
  return undefined;
}

/**
 * Maps any error a command meets to its exit code and one-line message; `situation` (the
 * credentials given, the card) lets a refusal say what the agent wants.
 */
export function failureOf(error: unknown, situation?: CallSituation): Failure {
  if (error instanceof UsageFailure) {
    return { exitCode: ExitCode.Usage, message: oneLine(error.message) };
  }
  if (error instanceof CommandFailure) return error.failure;
  const status = httpStatusOf(error);
  const refusal = status === undefined ? undefined : refusalMessage(status, situation);
  if (refusal !== undefined) return { exitCode: ExitCode.Connection, message: refusal };
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
