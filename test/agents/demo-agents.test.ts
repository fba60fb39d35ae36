import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { demoAgents } from '../../src/agents/index.js';
import * as registry from '../../src/agents/index.js';
import { handlerFor } from './agent-harness.js';

const agentsDir = new URL('../../src/agents/', import.meta.url);

describe('demoAgents', () => {
  it('lists dice, translator, echo and conformance, in that order, and nothing else', () => {
    expect(Object.keys(demoAgents)).toEqual(['dice', 'translator', 'echo', 'conformance']);
    expect(Object.keys(registry)).toEqual(['demoAgents']);
    expect(Object.isFrozen(demoAgents)).toBe(true);
  });

  it.each(Object.entries(demoAgents))('%s has a complete card', (_, agent) => {
    const { card } = agent;
    expect(card.name).not.toBe('');
    expect(card.description.length).toBeGreaterThan(40);
    expect(card.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(card.defaultInputModes?.length).toBeGreaterThan(0);
    expect(card.defaultOutputModes?.length).toBeGreaterThan(0);
    expect(card.capabilities?.streaming).toBe(true);
    expect(card.skills.length).toBeGreaterThan(0);
    for (const skill of card.skills) {
      expect(skill.id).toMatch(/^[a-z0-9-]+$/);
      expect(skill.name).not.toBe('');
      expect(skill.description).not.toBe('');
      expect(skill.tags.length).toBeGreaterThan(0);
      expect(skill.examples?.length).toBeGreaterThan(0);
      expect(skill.inputModes?.length).toBeGreaterThan(0);
      expect(skill.outputModes?.length).toBeGreaterThan(0);
    }
    const served = handlerFor(agent).card;
    expect(served.name).toBe(card.name);
    expect(served.capabilities.streaming).toBe(true);
  });

  it('have distinct names', () => {
    const names = Object.values(demoAgents).map((agent) => agent.card.name);
    expect(new Set(names).size).toBe(names.length);
  });
});

describe('demo agent sources', () => {
  const files = readdirSync(agentsDir).filter((name) => name.endsWith('.ts'));

  it.each(files)('%s imports only the public API', (file) => {
    const source = readFileSync(new URL(file, agentsDir), 'utf8');
    const specifiers = [...source.matchAll(/\bfrom\s+'([^']+)'/g)].map((match) => match[1]);
    for (const specifier of specifiers) {
      expect(specifier).toMatch(
        /^(\.\.\/index\.js|\.\.\/server\.js|\.\/[a-z-]+\.js|node:[a-z/]+)$/,
      );
    }
  });
});
