/**
 * `tandem serve --extended-card [agent=]FILE`: the extended agent card (spec 3.1.11, 13.3) of the
 * agents served, from a JSON fragment merged over the public card — its `skills` are added to the
 * public ones (a skill with the same id replaces the public one), every other field replaces the
 * public field. The agents then declare `capabilities.extendedAgentCard` and serve it through
 * GetExtendedAgentCard on every binding, to the callers that authentication admits (every caller
 * when `--auth` is off).
 */

import { readFileSync } from 'node:fs';
import { parseMessage } from '../../index.js';
import type { AgentCardInput, AgentDefinition } from '../../server.js';
import { UsageFailure } from '../cli-values.js';

/** The `parseArgs` options this module reads. */
export const EXTENDED_CARD_OPTIONS = {
  'extended-card': { type: 'string', multiple: true },
} as const;

/** The help lines of {@link EXTENDED_CARD_OPTIONS}. */
export const EXTENDED_CARD_HELP = `  --extended-card [<agent>=]<path>
                          The extended agent card (GetExtendedAgentCard): a JSON fragment merged over
                          the public card (its skills added); for every agent, or the one named
                          (repeatable). Served to authenticated callers only, so use it with --auth`;

type Fragment = Readonly<Record<string, unknown>>;

/** Fragments by agent name; `'*'` for every agent. */
export type ExtendedCards = ReadonlyMap<string, Fragment>;

function readFragment(path: string): Fragment {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageFailure(
      `--extended-card ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageFailure(`--extended-card ${path} is not JSON (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageFailure(`--extended-card ${path} must hold a JSON object (a card fragment)`);
  }
  return value as Fragment;
}

/**
 * Reads the `--extended-card` values.
 *
 * @throws UsageFailure for an unreadable file, a fragment that is not an object, an agent named twice.
 */
export function parseExtendedCards(
  values: readonly string[] | undefined,
  agents: readonly string[],
): ExtendedCards {
  const cards = new Map<string, Fragment>();
  for (const value of values ?? []) {
    const eq = value.indexOf('=');
    const named = eq > 0 && agents.includes(value.slice(0, eq));
    const agent = named ? value.slice(0, eq) : '*';
    if (cards.has(agent)) {
      throw new UsageFailure(
        `--extended-card is given twice for ${agent === '*' ? 'every agent' : agent}`,
      );
    }
    cards.set(agent, readFragment(named ? value.slice(eq + 1) : value));
  }
  return cards;
}

/**
 * The agent with its extended card, if one is configured for `name`.
 *
 * @throws UsageFailure when the merged card is not a valid agent card, naming every problem.
 */
export function withExtendedCard(
  agent: AgentDefinition,
  name: string,
  cards: ExtendedCards,
): AgentDefinition {
  const fragment = cards.get(name) ?? cards.get('*');
  if (fragment === undefined) return agent;
  const { skills: extraSkills, ...rest } = fragment;
  const skills = Array.isArray(extraSkills) ? (extraSkills as AgentCardInput['skills']) : [];
  const ids = new Set(skills.map((skill) => skill.id));
  const capabilities = { ...agent.card.capabilities, extendedAgentCard: true };
  const extendedCard = {
    ...agent.card,
    ...rest,
    capabilities,
    skills: [...agent.card.skills.filter((skill) => !ids.has(skill.id)), ...skills],
  } as AgentCardInput;
  const check = parseMessage('AgentCard', {
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    version: '1.0.0',
    ...extendedCard,
    supportedInterfaces: [
      { url: 'http://127.0.0.1', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ],
  });
  if (!check.success) {
    const problems = check.violations.map((v) => `${v.field}: ${v.description}`).join('; ');
    throw new UsageFailure(`The extended card of ${name} is not a valid agent card: ${problems}`);
  }
  return { ...agent, card: { ...agent.card, capabilities }, extendedCard };
}
