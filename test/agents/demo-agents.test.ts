import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as registry from '../../src/agents/index.js';
import { demoAgentNames, isDemoAgentName, loadDemoAgent } from '../../src/agents/index.js';
import { handlerFor } from './agent-harness.js';

const agentsDir = new URL('../../src/agents/', import.meta.url);

const demoAgents = Object.fromEntries(
  await Promise.all(demoAgentNames.map(async (name) => [name, await loadDemoAgent(name)] as const)),
);

describe('demo agents', () => {
  it('lists dice, translator, echo and conformance, in that order, and nothing else', () => {
    expect(demoAgentNames).toEqual(['dice', 'translator', 'echo', 'conformance']);
    expect(Object.keys(registry).sort()).toEqual([
      'demoAgentNames',
      'isDemoAgentName',
      'loadDemoAgent',
    ]);
    expect(demoAgentNames.every(isDemoAgentName)).toBe(true);
    expect(isDemoAgentName('toString')).toBe(false);
    expect(isDemoAgentName('Echo')).toBe(false);
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
