import { describe, it, expect } from 'vitest';
import type { TaskState } from '../../src/protocol/generated/types.js';
import { InvalidTransitionError } from '../../src/protocol/local-errors.js';
import {
  INTERRUPTED_STATES,
  TERMINAL_STATES,
  assertTransition,
  canTransition,
  isFinalOrInterruptedState,
  isInterruptedState,
  isTerminalState,
} from '../../src/protocol/task-state.js';

const STATES: readonly TaskState[] = [
  'TASK_STATE_UNSPECIFIED',
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
];

/**
 * Every legal transition, written out (short names, `TASK_STATE_` dropped). Any pair not listed
 * is illegal: terminal states never change (not even to themselves), UNSPECIFIED is never legal on
 * either side, and nothing goes back to SUBMITTED except SUBMITTED itself.
 */
const LEGAL = new Set([
  // SUBMITTED → itself, WORKING, an interrupted state, any terminal state
  'SUBMITTED -> SUBMITTED',
  'SUBMITTED -> WORKING',
  'SUBMITTED -> INPUT_REQUIRED',
  'SUBMITTED -> AUTH_REQUIRED',
  'SUBMITTED -> COMPLETED',
  'SUBMITTED -> FAILED',
  'SUBMITTED -> CANCELED',
  'SUBMITTED -> REJECTED',
  // WORKING → itself, an interrupted state, any terminal state
  'WORKING -> WORKING',
  'WORKING -> INPUT_REQUIRED',
  'WORKING -> AUTH_REQUIRED',
  'WORKING -> COMPLETED',
  'WORKING -> FAILED',
  'WORKING -> CANCELED',
  'WORKING -> REJECTED',
  // INPUT_REQUIRED → itself, WORKING, any terminal state (not AUTH_REQUIRED)
  'INPUT_REQUIRED -> INPUT_REQUIRED',
  'INPUT_REQUIRED -> WORKING',
  'INPUT_REQUIRED -> COMPLETED',
  'INPUT_REQUIRED -> FAILED',
  'INPUT_REQUIRED -> CANCELED',
  'INPUT_REQUIRED -> REJECTED',
  // AUTH_REQUIRED → itself, WORKING, any terminal state (not INPUT_REQUIRED)
  'AUTH_REQUIRED -> AUTH_REQUIRED',
  'AUTH_REQUIRED -> WORKING',
  'AUTH_REQUIRED -> COMPLETED',
  'AUTH_REQUIRED -> FAILED',
  'AUTH_REQUIRED -> CANCELED',
  'AUTH_REQUIRED -> REJECTED',
]);

const short = (state: TaskState): string => state.replace(/^TASK_STATE_/, '');

const PAIRS: [TaskState, TaskState, boolean][] = STATES.flatMap((from) =>
  STATES.map((to): [TaskState, TaskState, boolean] => [
    from,
    to,
    LEGAL.has(`${short(from)} -> ${short(to)}`),
  ]),
);

describe('the transition table', () => {
  it('covers all 81 ordered pairs, 27 of them legal', () => {
    expect(PAIRS).toHaveLength(81);
    expect(PAIRS.filter(([, , legal]) => legal)).toHaveLength(27);
    expect(LEGAL.size).toBe(27);
  });

  it.each(PAIRS)('%s -> %s is legal: %s', (from, to, legal) => {
    expect(canTransition(from, to)).toBe(legal);
  });

  it.each(PAIRS)('assertTransition(%s, %s) throws exactly when illegal', (from, to, legal) => {
    if (legal) {
      expect(() => assertTransition(from, to)).not.toThrow();
      return;
    }
    let thrown: unknown;
    try {
      assertTransition(from, to);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidTransitionError);
    const error = thrown as InvalidTransitionError;
    expect(error.from).toBe(from);
    expect(error.to).toBe(to);
    expect(error.message).toContain(from);
    expect(error.message).toContain(to);
  });
});

describe('the rules behind the table', () => {
  const terminal = STATES.filter((s) =>
    ['COMPLETED', 'FAILED', 'CANCELED', 'REJECTED'].includes(short(s)),
  );

  it.each(terminal)('%s never changes, not even to itself', (from) => {
    for (const to of STATES) expect(canTransition(from, to)).toBe(false);
  });

  it.each(STATES)('UNSPECIFIED is illegal as source and target with %s', (other) => {
    expect(canTransition('TASK_STATE_UNSPECIFIED', other)).toBe(false);
    expect(canTransition(other, 'TASK_STATE_UNSPECIFIED')).toBe(false);
  });

  it.each(STATES)('%s -> SUBMITTED is legal only from SUBMITTED', (from) => {
    expect(canTransition(from, 'TASK_STATE_SUBMITTED')).toBe(from === 'TASK_STATE_SUBMITTED');
  });

  it('does not move between the two interrupted states', () => {
    expect(canTransition('TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED')).toBe(false);
    expect(canTransition('TASK_STATE_AUTH_REQUIRED', 'TASK_STATE_INPUT_REQUIRED')).toBe(false);
  });

  it('explains why a terminal state cannot change', () => {
    expect(() => assertTransition('TASK_STATE_COMPLETED', 'TASK_STATE_WORKING')).toThrow(
      /terminal/,
    );
  });
});

/** [state, terminal, interrupted] */
const CLASSIFICATION: [TaskState, boolean, boolean][] = [
  ['TASK_STATE_UNSPECIFIED', false, false],
  ['TASK_STATE_SUBMITTED', false, false],
  ['TASK_STATE_WORKING', false, false],
  ['TASK_STATE_COMPLETED', true, false],
  ['TASK_STATE_FAILED', true, false],
  ['TASK_STATE_CANCELED', true, false],
  ['TASK_STATE_INPUT_REQUIRED', false, true],
  ['TASK_STATE_REJECTED', true, false],
  ['TASK_STATE_AUTH_REQUIRED', false, true],
];

describe.each(CLASSIFICATION)('%s', (state, terminal, interrupted) => {
  it(`is terminal: ${terminal}`, () => {
    expect(isTerminalState(state)).toBe(terminal);
    expect(TERMINAL_STATES.includes(state)).toBe(terminal);
  });

  it(`is interrupted: ${interrupted}`, () => {
    expect(isInterruptedState(state)).toBe(interrupted);
    expect(INTERRUPTED_STATES.includes(state)).toBe(interrupted);
  });

  it(`is final or interrupted: ${terminal || interrupted}`, () => {
    expect(isFinalOrInterruptedState(state)).toBe(terminal || interrupted);
  });
});

describe('state lists', () => {
  it('classifies all 9 states', () => {
    expect(CLASSIFICATION.map(([s]) => s)).toEqual(STATES);
  });

  it('lists the 4 terminal and 2 interrupted states', () => {
    expect([...TERMINAL_STATES].sort()).toEqual([
      'TASK_STATE_CANCELED',
      'TASK_STATE_COMPLETED',
      'TASK_STATE_FAILED',
      'TASK_STATE_REJECTED',
    ]);
    expect([...INTERRUPTED_STATES].sort()).toEqual([
      'TASK_STATE_AUTH_REQUIRED',
      'TASK_STATE_INPUT_REQUIRED',
    ]);
  });
});
