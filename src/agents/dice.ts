/**
 * The dice demo agent: rolls dice written in common notation ("roll 2d6", "d20+3", "2d6+1d4")
 * and answers with one artifact holding the result as text and as data. A request it cannot read
 * moves the task to INPUT_REQUIRED; the next message on the task is read as the roll instead.
 */

import { dataPart, textPart } from '../index.js';
import { defineAgent, type AgentDefinition } from '../server.js';
import { DICE_LIMITS, parseDiceNotation, type DiceSpec } from './dice-notation.js';

/** The outcome of a roll, as the agent's data part carries it. */
export type DiceRoll = {
  /** Canonical notation of what was rolled, e.g. `2d6+1`. */
  notation: string;
  /** Every die's result, group after group in the order written. */
  rolls: number[];
  modifier: number;
  /** Sum of the rolls plus the modifier. */
  sum: number;
};

const EXAMPLES = ['roll 2d6', 'd20+3', '3d8', '2d10-1', '2d6+1d4'];
const ASK = `What should I roll? For example ${EXAMPLES.map((e) => `"${e}"`).join(', ')}. At most ${DICE_LIMITS.maxDice} dice with ${DICE_LIMITS.minSides} to ${DICE_LIMITS.maxSides} sides each.`;

const SPAN = 2 ** 32;
const random = new Uint32Array(1);

/**
 * One fair die: a uniform integer in 1..sides from the platform's CSPRNG. Values of the top,
 * incomplete range of 2^32 are drawn again, so that no face is more likely (no modulo bias).
 */
export function rollDie(sides: number): number {
  const limit = SPAN - (SPAN % sides);
  for (;;) {
    crypto.getRandomValues(random);
    const value = random[0] as number;
    if (value < limit) return (value % sides) + 1;
  }
}

/** Rolls every die of a spec. */
export function rollDice(spec: DiceSpec): DiceRoll {
  const rolls: number[] = [];
  for (const group of spec.groups) {
    for (let i = 0; i < group.count; i++) rolls.push(rollDie(group.sides));
  }
  const sum = rolls.reduce((total, roll) => total + roll, spec.modifier);
  return { notation: spec.notation, rolls, modifier: spec.modifier, sum };
}

/** The roll as one line of text: "Rolled 2d6+1: 3 + 5 + 1 = 9", or "Rolled 1d20: 14". */
export function describeRoll(roll: DiceRoll): string {
  if (roll.rolls.length === 1 && roll.modifier === 0) {
    return `Rolled ${roll.notation}: ${roll.sum}`;
  }
  let terms = roll.rolls.join(' + ');
  if (roll.modifier > 0) terms += ` + ${roll.modifier}`;
  if (roll.modifier < 0) terms += ` - ${-roll.modifier}`;
  return `Rolled ${roll.notation}: ${terms} = ${roll.sum}`;
}

export const dice: AgentDefinition = defineAgent({
  card: {
    name: 'Dice',
    description:
      'Rolls dice written in common notation ("roll 2d6", "d20+3", "2d6+1d4-1") with a fair, ' +
      'cryptographic random source. Answers with one artifact "roll": a text part and a data ' +
      'part {notation, rolls, modifier, sum}. Asks again (input required) when it cannot read ' +
      `the request. Limits: ${DICE_LIMITS.maxDice} dice, ${DICE_LIMITS.maxSides} sides.`,
    version: '1.0.0',
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain', 'application/json'],
    capabilities: { streaming: true },
    skills: [
      {
        id: 'roll-dice',
        name: 'Roll dice',
        description:
          'Rolls one or more groups of dice (NdS, count optional) plus or minus constants. ' +
          'Dice groups are added; constants are added or subtracted. "roll" and "please" are ' +
          'optional; case does not matter.',
        tags: ['dice', 'random', 'games', 'tabletop'],
        examples: EXAMPLES,
        inputModes: ['text/plain'],
        outputModes: ['text/plain', 'application/json'],
      },
    ],
  },
  async execute(ctx) {
    const parsed = parseDiceNotation(ctx.text);
    if (!parsed.ok) {
      return ctx.inputRequired(parsed.kind === 'empty' ? ASK : `${parsed.error} ${ASK}`);
    }
    const roll = rollDice(parsed.spec);
    await ctx.artifact([textPart(describeRoll(roll)), dataPart(roll)], { name: 'roll' });
    return ctx.complete();
  },
});
