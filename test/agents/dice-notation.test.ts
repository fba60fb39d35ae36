import { describe, expect, it } from 'vitest';
import { DICE_LIMITS, parseDiceNotation } from '../../src/agents/dice-notation.js';

describe('parseDiceNotation', () => {
  it.each([
    ['roll 2d6', '2d6', [[2, 6]], 0],
    ['roll d20+3', '1d20+3', [[1, 20]], 3],
    ['3d8', '3d8', [[3, 8]], 0],
    ['2d10-1', '2d10-1', [[2, 10]], -1],
    ['d6', '1d6', [[1, 6]], 0],
    ['ROLL 2D6', '2d6', [[2, 6]], 0],
    ['Please roll 4d6!', '4d6', [[4, 6]], 0],
    ['roll 2d6, please.', '2d6', [[2, 6]], 0],
    ['roll me a d20', '1d20', [[1, 20]], 0],
    ['  2d6 + 3  ', '2d6+3', [[2, 6]], 3],
    [
      '2d6+1d4',
      '2d6+1d4',
      [
        [2, 6],
        [1, 4],
      ],
      0,
    ],
    [
      '2d6+1d4+1',
      '2d6+1d4+1',
      [
        [2, 6],
        [1, 4],
      ],
      1,
    ],
    [
      '1d4+2+d8-5',
      '1d4+1d8-3',
      [
        [1, 4],
        [1, 8],
      ],
      -3,
    ],
    ['5+d6', '1d6+5', [[1, 6]], 5],
    ['d6+1-1', '1d6', [[1, 6]], 0],
    ['100d1000', '100d1000', [[100, 1000]], 0],
    [
      '50d6+50d6',
      '50d6+50d6',
      [
        [50, 6],
        [50, 6],
      ],
      0,
    ],
    ['d2', '1d2', [[1, 2]], 0],
    ['007d06', '7d6', [[7, 6]], 0],
  ])('reads %j as %s', (input, notation, groups, modifier) => {
    const parsed = parseDiceNotation(input);
    expect(parsed).toEqual({
      ok: true,
      spec: {
        notation,
        groups: groups.map(([count, sides]) => ({ count, sides })),
        modifier,
      },
    });
  });

  it.each([
    ['', 'empty'],
    ['   ', 'empty'],
    ['roll', 'empty'],
    ['please roll!', 'empty'],
    ['hello', 'unrecognized'],
    ['roll some dice', 'unrecognized'],
    ['2d', 'unrecognized'],
    ['d', 'unrecognized'],
    ['2x6', 'unrecognized'],
    ['2d6+', 'unrecognized'],
    ['2d6++1', 'unrecognized'],
    ['-2d6', 'unrecognized'],
    ['+d6', 'unrecognized'],
    ['2d6*2', 'unrecognized'],
    ['2.5d6', 'unrecognized'],
    ['3', 'unrecognized'],
    ['3+4', 'unrecognized'],
    ['2d6-1d4', 'unrecognized'],
    ['2d6 1d4', 'unrecognized'],
    ['2d6 and 1d4', 'unrecognized'],
  ])('refuses %j (%s)', (input, kind) => {
    const parsed = parseDiceNotation(input);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.kind).toBe(kind);
      expect(parsed.error).not.toBe('');
    }
  });

  it('says that dice groups can only be added', () => {
    const parsed = parseDiceNotation('2d6-1d4');
    expect(!parsed.ok && parsed.error).toMatch(/only be added/);
  });

  it.each([
    ['101d6', /at most 100 dice/],
    ['60d6+41d4', /at most 100 dice at once \(asked for 101\)/],
    ['99999999999999999999d6', /at most 100 dice/],
    ['d1001', /at most 1000 sides/],
    ['2d1', /at least 2 sides/],
    ['d0', /at least 2 sides/],
    ['0d6', /rolls no dice/],
    ['d6+10001', /modifier can be at most 10000/],
    ['d6-10001', /modifier can be at most 10000/],
    [`d6${'+1'.repeat(100)}`, /too long/],
  ])('refuses %j for exceeding a limit', (input, message) => {
    const parsed = parseDiceNotation(input);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.kind).toBe('limit');
      expect(parsed.error).toMatch(message);
    }
  });

  it('states its limits', () => {
    expect(DICE_LIMITS).toMatchObject({ maxDice: 100, minSides: 2, maxSides: 1000 });
  });
});
