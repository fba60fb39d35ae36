import { describe, expect, it } from 'vitest';
import { describeRoll, dice, rollDice, rollDie } from '../../src/agents/dice.js';
import { parseDiceNotation, type DiceSpec } from '../../src/agents/dice-notation.js';
import type { Task } from '../../src/index.js';
import { call, collect, describeEvents, handlerFor, request } from './agent-harness.js';

function specOf(text: string): DiceSpec {
  const parsed = parseDiceNotation(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.spec;
}

interface RollData {
  notation: string;
  rolls: number[];
  modifier: number;
  sum: number;
}

/** Checks the single "roll" artifact of a completed task; returns its data part. */
function rollOf(task: Task | undefined): RollData {
  expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
  expect(task?.artifacts).toHaveLength(1);
  const artifact = task?.artifacts?.[0];
  expect(artifact?.name).toBe('roll');
  expect(artifact?.parts).toHaveLength(2);
  const [text, data] = artifact?.parts ?? [];
  expect(typeof text?.text).toBe('string');
  expect(data?.mediaType).toBe('application/json');
  const roll = data?.data as unknown as RollData;
  expect(Object.keys(roll).sort()).toEqual(['modifier', 'notation', 'rolls', 'sum']);
  expect(roll.sum).toBe(roll.rolls.reduce((a, b) => a + b, roll.modifier));
  expect(text?.text).toBe(describeRoll(roll));
  return roll;
}

describe('rollDie', () => {
  it('stays within 1..sides and shows every face of a d6', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const value = rollDie(6);
      expect(Number.isInteger(value)).toBe(true);
      expect(value).toBeGreaterThanOrEqual(1);
      expect(value).toBeLessThanOrEqual(6);
      seen.add(value);
    }
    expect([...seen].sort()).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('handles the largest die and sides that do not divide 2^32', () => {
    for (const sides of [2, 3, 7, 1000]) {
      for (let i = 0; i < 500; i++) {
        const value = rollDie(sides);
        expect(value >= 1 && value <= sides).toBe(true);
      }
    }
  });
});

describe('rollDice and describeRoll', () => {
  it('rolls every group in order and adds the modifier', () => {
    const roll = rollDice(specOf('2d6+1d4-1'));
    expect(roll.notation).toBe('2d6+1d4-1');
    expect(roll.rolls).toHaveLength(3);
    expect(roll.rolls.slice(0, 2).every((r) => r >= 1 && r <= 6)).toBe(true);
    expect(roll.rolls[2]).toBeGreaterThanOrEqual(1);
    expect(roll.rolls[2]).toBeLessThanOrEqual(4);
    expect(roll.modifier).toBe(-1);
    expect(roll.sum).toBe(roll.rolls.reduce((a, b) => a + b, -1));
  });

  it.each([
    [{ notation: '2d6', rolls: [3, 5], modifier: 0, sum: 8 }, 'Rolled 2d6: 3 + 5 = 8'],
    [{ notation: '1d20+3', rolls: [14], modifier: 3, sum: 17 }, 'Rolled 1d20+3: 14 + 3 = 17'],
    [{ notation: '2d10-1', rolls: [4, 7], modifier: -1, sum: 10 }, 'Rolled 2d10-1: 4 + 7 - 1 = 10'],
    [{ notation: '1d20', rolls: [14], modifier: 0, sum: 14 }, 'Rolled 1d20: 14'],
  ])('describes %j', (roll, text) => {
    expect(describeRoll(roll)).toBe(text);
  });
});

describe('dice agent', () => {
  it('answers "roll 2d6" with one artifact (text and data) and completes', async () => {
    const handler = handlerFor(dice);
    const { task } = await handler.sendMessage(call, request('roll 2d6'));
    const roll = rollOf(task);
    expect(roll.notation).toBe('2d6');
    expect(roll.modifier).toBe(0);
    expect(roll.rolls).toHaveLength(2);
    for (const value of roll.rolls) expect(value >= 1 && value <= 6).toBe(true);
    expect(task?.artifacts?.[0]?.parts[0]?.text).toMatch(/^Rolled 2d6: [1-6] \+ [1-6] = \d+$/);
  });

  it.each([
    ['roll d20+3', '1d20+3', 1, 20, 3],
    ['Please ROLL 3D8', '3d8', 3, 8, 0],
    ['2d10-1', '2d10-1', 2, 10, -1],
    ['d6', '1d6', 1, 6, 0],
    ['100d1000', '100d1000', 100, 1000, 0],
  ])('rolls %j', async (text, notation, count, sides, modifier) => {
    const handler = handlerFor(dice);
    const roll = rollOf((await handler.sendMessage(call, request(text))).task);
    expect(roll).toMatchObject({ notation, modifier });
    expect(roll.rolls).toHaveLength(count);
    for (const value of roll.rolls) expect(value >= 1 && value <= sides).toBe(true);
  });

  it('rolls several groups, keeping each roll in its own range', async () => {
    const handler = handlerFor(dice);
    const roll = rollOf((await handler.sendMessage(call, request('2d6+1d4'))).task);
    expect(roll.notation).toBe('2d6+1d4');
    expect(roll.rolls).toHaveLength(3);
    const [a = 0, b = 0, c = 0] = roll.rolls;
    expect([a, b].every((r) => r >= 1 && r <= 6)).toBe(true);
    expect(c >= 1 && c <= 4).toBe(true);
  });

  it('streams task, artifact, completed', async () => {
    const handler = handlerFor(dice);
    const events = await collect(await handler.sendStreamingMessage(call, request('3d8')));
    expect(describeEvents(events)).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'artifact+last',
      'status:TASK_STATE_COMPLETED',
    ]);
  });

  it('asks what to roll, then rolls the answer on the same task', async () => {
    const handler = handlerFor(dice);
    const first = await handler.sendMessage(call, request('what can you do?'));
    const task = first.task;
    expect(task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const question = task?.status.message?.parts[0]?.text ?? '';
    expect(question).toMatch(/What should I roll\?/);
    expect(question).toContain('"roll 2d6", "d20+3"');
    expect(task?.artifacts ?? []).toHaveLength(0);

    const second = await handler.sendMessage(call, request('roll 4d6', { taskId: task?.id }));
    expect(second.task?.id).toBe(task?.id);
    const roll = rollOf(second.task);
    expect(roll.notation).toBe('4d6');
    expect(roll.rolls).toHaveLength(4);
  });

  it('keeps asking while the answer is still not dice', async () => {
    const handler = handlerFor(dice);
    const { task } = await handler.sendMessage(call, request('roll'));
    expect(task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const again = await handler.sendMessage(call, request('banana', { taskId: task?.id }));
    expect(again.task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(again.task?.status.message?.parts[0]?.text).toMatch(/could not read "banana"/);
    const done = await handler.sendMessage(call, request('d20', { taskId: task?.id }));
    expect(rollOf(done.task).notation).toBe('1d20');
  });

  it.each([
    ['roll 101d6', /at most 100 dice/],
    ['roll d1001', /at most 1000 sides/],
    ['roll 0d6', /rolls no dice/],
  ])('explains the limit %j and asks again', async (text, message) => {
    const handler = handlerFor(dice);
    const { task } = await handler.sendMessage(call, request(text));
    expect(task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const question = task?.status.message?.parts[0]?.text ?? '';
    expect(question).toMatch(message);
    expect(question).toMatch(/What should I roll\?/);
  });
});
