/**
 * The dice notation the dice agent understands, parsed into a {@link DiceSpec} or a message that
 * tells the user what was wrong. Parsing never rolls: it is pure, so its whole grammar can be
 * tested as a table.
 *
 * Grammar (case-insensitive, spaces around `+` / `-` allowed):
 *
 * ```
 * request  := filler* expr filler* [.!?]*
 * filler   := "roll" | "please" | "me" | "a"        (whole words, anywhere; commas ignored)
 * expr     := term (("+" | "-") term)*
 * term     := [count] "d" sides                     (a dice group; count defaults to 1)
 *           | number                                (a constant, added or subtracted)
 * ```
 *
 * At least one dice group is required. Dice groups can only be added ("2d6+1d4"); constants can
 * be added or subtracted anywhere and are summed into one modifier. The canonical notation lists
 * the dice groups in the order written, with explicit counts, then the modifier: "d20 + 3" is
 * `1d20+3`.
 */

/** One group of identical dice: `count` dice with `sides` sides each. */
export interface DiceGroup {
  readonly count: number;
  readonly sides: number;
}

/** A parsed roll request. */
export interface DiceSpec {
  /** Canonical form, e.g. `2d6+1d4-1`. */
  readonly notation: string;
  readonly groups: readonly DiceGroup[];
  /** Sum of the constants. */
  readonly modifier: number;
}

/** The bounds of a roll, so that a request cannot make the agent do unbounded work. */
export const DICE_LIMITS = {
  /** Dice in one request, over all groups. */
  maxDice: 100,
  minSides: 2,
  maxSides: 1000,
  /** Largest absolute value of the modifier. */
  maxModifier: 10_000,
  /** Longest request text read, in characters. */
  maxLength: 200,
} as const;

/**
 * The outcome of parsing: a spec, or why there is none. `kind` tells a request that is not dice
 * at all (`unrecognized`) from dice outside {@link DICE_LIMITS} (`limit`).
 */
export type DiceParseResult =
  | { readonly ok: true; readonly spec: DiceSpec }
  | {
      readonly ok: false;
      readonly kind: 'empty' | 'unrecognized' | 'limit';
      readonly error: string;
    };

const FILLER_WORDS = new Set(['roll', 'please', 'me', 'a']);
const TERM = /([+-]?)(?:(\d*)d(\d+)|(\d+))/y;

function failure(kind: 'empty' | 'unrecognized' | 'limit', error: string): DiceParseResult {
  return { ok: false, kind, error };
}

/** Parses a roll request such as "roll 2d6", "d20+3" or "Please roll 2d6 + 1d4!". */
export function parseDiceNotation(text: string): DiceParseResult {
  const trimmed = text.trim();
  if (trimmed.length > DICE_LIMITS.maxLength) {
    return failure(
      'limit',
      `That request is too long (${trimmed.length} characters); keep it under ${DICE_LIMITS.maxLength}.`,
    );
  }
  const words = trimmed
    .toLowerCase()
    .replace(/[.!?]+$/, '')
    .replace(/,/g, ' ')
    .split(/\s+/)
    .filter((word) => word !== '' && !FILLER_WORDS.has(word));
  const expression = words.join('');
  if (expression === '') return failure('empty', 'You did not say which dice to roll.');
  return parseExpression(expression, trimmed);
}

function parseExpression(expression: string, original: string): DiceParseResult {
  const unrecognized = failure('unrecognized', `I could not read "${original}" as dice.`);
  const groups: DiceGroup[] = [];
  let modifier = 0;
  let dice = 0;
  TERM.lastIndex = 0;
  while (TERM.lastIndex < expression.length) {
    const start = TERM.lastIndex;
    const match = TERM.exec(expression);
    if (match === null) return unrecognized;
    const [term, sign = '', count, sides, constant] = match;
    if ((start === 0) !== (sign === '')) return unrecognized;
    if (constant !== undefined) {
      modifier += sign === '-' ? -Number(constant) : Number(constant);
      if (Math.abs(modifier) > DICE_LIMITS.maxModifier) {
        return failure(
          'limit',
          `The modifier can be at most ${DICE_LIMITS.maxModifier} either way.`,
        );
      }
      continue;
    }
    if (sign === '-') {
      return failure(
        'unrecognized',
        `Dice groups can only be added, not subtracted ("${term}"); subtract plain numbers only.`,
      );
    }
    const group = {
      count: count === '' || count === undefined ? 1 : Number(count),
      sides: Number(sides),
    };
    const problem = checkGroup(group, dice);
    if (problem !== undefined) return failure('limit', problem);
    dice += group.count;
    groups.push(group);
  }
  if (groups.length === 0) return failure('unrecognized', `"${original}" has no dice in it.`);
  return { ok: true, spec: { notation: notationOf(groups, modifier), groups, modifier } };
}

function checkGroup(group: DiceGroup, diceSoFar: number): string | undefined {
  const notation = `${group.count}d${group.sides}`;
  if (group.count < 1) return `"${notation}" rolls no dice; roll at least one.`;
  if (group.sides < DICE_LIMITS.minSides) {
    return `A die needs at least ${DICE_LIMITS.minSides} sides ("${notation}").`;
  }
  if (group.sides > DICE_LIMITS.maxSides) {
    return `A die can have at most ${DICE_LIMITS.maxSides} sides ("${notation}").`;
  }
  if (diceSoFar + group.count > DICE_LIMITS.maxDice) {
    return `I can roll at most ${DICE_LIMITS.maxDice} dice at once (asked for ${diceSoFar + group.count}).`;
  }
  return undefined;
}

function notationOf(groups: readonly DiceGroup[], modifier: number): string {
  const dice = groups.map((group) => `${group.count}d${group.sides}`).join('+');
  if (modifier === 0) return dice;
  return modifier > 0 ? `${dice}+${modifier}` : `${dice}${modifier}`;
}
