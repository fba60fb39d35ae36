/**
 * The task state machine of A2A (spec 4.1.3, 3.1.2, 3.2.2). A terminal state never changes; an
 * interrupted state waits for the client (input) or for credentials (auth) and resumes into
 * `WORKING`.
 *
 * Legal transitions:
 * - `SUBMITTED` → `WORKING`, `INPUT_REQUIRED`, `AUTH_REQUIRED`, any terminal state
 * - `WORKING` → `INPUT_REQUIRED`, `AUTH_REQUIRED`, any terminal state
 * - `INPUT_REQUIRED` / `AUTH_REQUIRED` → `WORKING`, any terminal state
 * - a non-terminal state → itself: a status refresh (e.g. a new progress message while working),
 *   not a change of state
 *
 * `UNSPECIFIED` is never a legal state of a task.
 */

import type { TaskState } from './generated/types.js';
import { InvalidTransitionError } from './local-errors.js';

/** The states after which a task never changes again. */
export const TERMINAL_STATES: readonly TaskState[] = [
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
];

/** The states in which a task waits for something from outside before it can go on. */
export const INTERRUPTED_STATES: readonly TaskState[] = [
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_AUTH_REQUIRED',
];

/**
 * The states in which an execution is working on the task: `SUBMITTED` (accepted, not started yet)
 * and `WORKING`. A task in one of them has a live execution somewhere, and a store shared by
 * several processes leases it to that process; one left in them by a dead process is orphaned.
 */
export const ACTIVE_STATES: readonly TaskState[] = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'];

/** True for `SUBMITTED` and `WORKING` (see {@link ACTIVE_STATES}). */
export function isActiveState(state: TaskState): boolean {
  return state === 'TASK_STATE_SUBMITTED' || state === 'TASK_STATE_WORKING';
}

/** True for `COMPLETED`, `FAILED`, `CANCELED` and `REJECTED`. */
export function isTerminalState(state: TaskState): boolean {
  switch (state) {
    case 'TASK_STATE_COMPLETED':
    case 'TASK_STATE_FAILED':
    case 'TASK_STATE_CANCELED':
    case 'TASK_STATE_REJECTED':
      return true;
    case 'TASK_STATE_UNSPECIFIED':
    case 'TASK_STATE_SUBMITTED':
    case 'TASK_STATE_WORKING':
    case 'TASK_STATE_INPUT_REQUIRED':
    case 'TASK_STATE_AUTH_REQUIRED':
      return false;
  }
}

/** True for `INPUT_REQUIRED` and `AUTH_REQUIRED`. */
export function isInterruptedState(state: TaskState): boolean {
  return state === 'TASK_STATE_INPUT_REQUIRED' || state === 'TASK_STATE_AUTH_REQUIRED';
}

/**
 * True where a blocking `SendMessage` returns and a stream closes: a terminal or interrupted state
 * (spec 3.2.2).
 */
export function isFinalOrInterruptedState(state: TaskState): boolean {
  return isTerminalState(state) || isInterruptedState(state);
}

/** Whether a task in state `from` may move to state `to` (see the module documentation). */
export function canTransition(from: TaskState, to: TaskState): boolean {
  if (from === 'TASK_STATE_UNSPECIFIED' || to === 'TASK_STATE_UNSPECIFIED') return false;
  if (isTerminalState(from)) return false;
  if (from === to) return true;
  switch (to) {
    case 'TASK_STATE_SUBMITTED':
      return false;
    case 'TASK_STATE_WORKING':
      return from === 'TASK_STATE_SUBMITTED' || isInterruptedState(from);
    case 'TASK_STATE_INPUT_REQUIRED':
    case 'TASK_STATE_AUTH_REQUIRED':
      return from === 'TASK_STATE_SUBMITTED' || from === 'TASK_STATE_WORKING';
    case 'TASK_STATE_COMPLETED':
    case 'TASK_STATE_FAILED':
    case 'TASK_STATE_CANCELED':
    case 'TASK_STATE_REJECTED':
      return true;
  }
}

/** Throws {@link InvalidTransitionError} unless {@link canTransition} allows the change. */
export function assertTransition(from: TaskState, to: TaskState): void {
  if (canTransition(from, to)) return;
  const why = isTerminalState(from)
    ? `${from} is terminal and never changes`
    : to === 'TASK_STATE_UNSPECIFIED' || from === 'TASK_STATE_UNSPECIFIED'
      ? 'TASK_STATE_UNSPECIFIED is not a valid task state'
      : `the A2A state machine does not allow ${from} -> ${to}`;
  throw new InvalidTransitionError(from, to, `Cannot move a task from ${from} to ${to}: ${why}`);
}
