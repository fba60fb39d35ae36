/**
 * What a check concludes, before the runner dresses it as a result: `pass`, `fail` (the runner
 * reports a failed SHOULD or MAY as a warning) or `skip`, one line of why, and the exchange that
 * shows it. The helpers for the most common conclusion — "the agent had to answer this error" —
 * live here, so that every check words it alike.
 */

import type { A2AErrorType } from '../protocol/error-codes.js';
import type { Exchange } from './wire/wire-exchange.js';
import type { CallOutcome, StreamOutcome } from './probe/probe.js';
import { describeError, expectedCodeOf, isErrorOfType } from './probe/wire-error.js';
import type { CheckBindingName } from './check-types.js';

/** A check's conclusion. */
export interface Verdict {
  readonly status: 'pass' | 'fail' | 'skip';
  readonly detail: string;
  readonly exchange?: Exchange | undefined;
}

export function pass(detail: string, exchange?: Exchange): Verdict {
  return { status: 'pass', detail, exchange };
}

export function fail(detail: string, exchange?: Exchange): Verdict {
  return { status: 'fail', detail, exchange };
}

export function skip(detail: string): Verdict {
  return { status: 'skip', detail };
}

/** Something a check needs and could not get, with why (it becomes the check's skip). */
export interface Unavailable {
  readonly unavailable: string;
}

export function isUnavailable(value: unknown): value is Unavailable {
  return typeof value === 'object' && value !== null && 'unavailable' in value;
}

/** The exchange of an outcome (a stream's as read so far). */
export function exchangeOf(outcome: CallOutcome | StreamOutcome): Exchange {
  return outcome.kind === 'stream' ? outcome.exchange() : outcome.exchange;
}

/** What an outcome was, for a detail line: `answered TaskNotFoundError (-32001)`. */
export function describeOutcome(outcome: CallOutcome | StreamOutcome): string {
  switch (outcome.kind) {
    case 'result':
      return 'answered with a result';
    case 'stream':
      return 'opened a stream';
    case 'error':
      return `answered ${describeError(outcome.error)}`;
    case 'invalid':
      return `answered something that is not the binding's: ${outcome.problem}`;
    case 'unreachable':
      return `did not answer: ${outcome.problem}`;
  }
}

/**
 * The verdict of a call that must fail with `type`: pass when it did (by type, or by code when
 * the error names no type), fail with what came instead.
 */
export function expectError(
  outcome: CallOutcome | StreamOutcome,
  type: A2AErrorType,
  binding: CheckBindingName,
  what: string,
): Verdict {
  if (outcome.kind === 'stream') outcome.events.close();
  const exchange = exchangeOf(outcome);
  if (outcome.kind === 'error' && isErrorOfType(outcome.error, type)) {
    const how =
      outcome.error.type === undefined ? ' (by its status only: it names no ErrorInfo reason)' : '';
    return pass(`${what}: ${describeError(outcome.error)}${how}`, exchange);
  }
  return fail(
    `${what}: expected ${type} (${expectedCodeOf(binding, type)}), the agent ${describeOutcome(outcome)}`,
    exchange,
  );
}

/** A stream outcome's stream, closed: for checks that only needed it to open or not. */
export function closeStream(outcome: CallOutcome | StreamOutcome): void {
  if (outcome.kind === 'stream') outcome.events.close();
}
