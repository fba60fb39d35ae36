import { describe, expect, it } from 'vitest';
import type { AgentCard } from '../../../src/client.js';
import { dice } from '../../../src/agents/dice.js';
import { echo } from '../../../src/agents/echo.js';
import { translator } from '../../../src/agents/translator.js';
import type { Peer } from '../../../src/agents/orchestrator/peer-directory.js';
import {
  MIN_SCORE,
  describeSkills,
  routeByScore,
  scoreSkill,
  wordsOf,
} from '../../../src/agents/orchestrator/skill-routing.js';

const peers: Peer[] = [dice, translator, echo].map((agent, i) => ({
  url: `http://peer${i}`,
  key: `k${i}`,
  card: agent.card as unknown as AgentCard,
}));

describe('routing by skills', () => {
  it('compares stemmed words, digits as one shape, without common words', () => {
    expect(wordsOf('Please translate the Translations of 3d8, d20+3!')).toEqual([
      'translat',
      'translat',
      '0d0',
      'd0',
      '0',
    ]);
  });

  it.each([
    ['roll 2d6', 'roll-dice'],
    ['3d8', 'roll-dice'],
    ['d20+3 please', 'roll-dice'],
    ['Translate "I love my cat" to Chinese', 'translate-en-zh'],
    ['Good morning! How are you?', 'translate-en-zh'],
    ['echo hello', 'echo'],
    ['slowstream 5 100', 'stream'],
  ])('routes "%s" to %s', (text, skill) => {
    expect(routeByScore(text, peers)?.skill.id).toBe(skill);
  });

  it.each(['what is the weather?', 'tell me a joke', ''])('finds nothing for "%s"', (text) => {
    expect(routeByScore(text, peers)).toBeUndefined();
  });

  it('scores tags 3, a whole example 4, name words 1, description words 0.5 up to 2', () => {
    const skill = {
      id: 's',
      name: 'Weather forecast',
      description: 'Forecasts the weather for a city, today or tomorrow',
      tags: ['weather', 'forecast'],
      examples: ['weather in Paris'],
    };
    const request = new Set(wordsOf('weather forecast in Paris tomorrow today city'));
    // tags 6 + example 4 + name 2 + description (weather, city, today, tomorrow, forecast) min(2, 2.5)
    expect(scoreSkill(skill, request)).toBe(14);
    expect(scoreSkill(skill, new Set(wordsOf('nothing related')))).toBeLessThan(MIN_SCORE);
  });

  it('prefers the peer listed first on a tie', () => {
    const twice = [peers[0] as Peer, { ...(peers[0] as Peer), url: 'http://other', key: 'x' }];
    expect(routeByScore('roll 2d6', twice)?.peer.url).toBe('http://peer0');
  });

  it('lists every skill, and the peers that could not be reached', () => {
    const text = describeSkills(peers.slice(0, 2), 1);
    expect(text).toContain('- Dice: Roll dice — ');
    expect(text).toContain('(e.g. "roll 2d6")');
    expect(text).toContain('(1 more agent could not be reached.)');
    expect(describeSkills([], 2)).toBe(
      'No agent I delegate to is available right now.\n(2 more agents could not be reached.)',
    );
  });
});
