/**
 * Routing by a chat model, when the orchestrator has one (`--model-url`): the model is shown the
 * request and a numbered list of the peers' skills (name, description, tags, examples) and
 * answers with the number of the skill that fits, or 0 for none. An answer that names no listed
 * skill leaves the choice to the score of `skill-routing.ts`; so does a model that fails, once the
 * caller has logged why (the `ModelError` is thrown to it).
 */

import { completeChat, type ChatModelOptions } from '../chat/chat-completions.js';
import type { Peer } from './peer-directory.js';
import { skillsOf, type Route } from './skill-routing.js';

const INSTRUCTIONS =
  'You route requests to the one agent skill that can handle them. Answer with the number of ' +
  'the best skill only, or 0 when none of them fits. No other words.';

/**
 * The skill the model picks: a route, `null` when the model says none fits, or `undefined` when
 * it gave no usable answer (the caller then scores the skills itself).
 *
 * @throws ModelError when the model call fails.
 */
export async function routeByModel(
  model: ChatModelOptions,
  text: string,
  peers: readonly Peer[],
  signal: AbortSignal,
): Promise<Route | null | undefined> {
  const skills = skillsOf(peers);
  if (skills.length === 0) return null;
  const list = skills
    .map(({ peer, skill }, i) => {
      const examples = (skill.examples ?? []).map((e) => JSON.stringify(e)).join(', ');
      return `${i + 1}. ${peer.card.name} / ${skill.name}: ${skill.description} Tags: ${skill.tags.join(', ')}.${examples === '' ? '' : ` Examples: ${examples}.`}`;
    })
    .join('\n');
  let answer = '';
  for await (const piece of completeChat(
    { ...model, stream: false, maxTokens: 8, temperature: 0 },
    [
      { role: 'system', content: INSTRUCTIONS },
      { role: 'user', content: `Skills:\n${list}\n\nRequest: ${text}` },
    ],
    signal,
  )) {
    answer += piece;
  }
  const match = /\d+/.exec(answer);
  if (match === null) return undefined;
  const index = Number(match[0]);
  if (index === 0) return null;
  const chosen = skills[index - 1];
  return chosen === undefined ? undefined : { ...chosen, score: Number.POSITIVE_INFINITY };
}
