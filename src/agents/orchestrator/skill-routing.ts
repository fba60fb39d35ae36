/**
 * Which peer skill fits a request, by a simple score over the words of the request and of each
 * skill of each peer's card. Words are compared lower-case, stemmed (a few English suffixes
 * dropped: "translate" and "translation" meet) and with every run of digits read as one digit
 * ("3d8" is shaped like "2d6"). A skill scores:
 *
 * - 3 for each of its tags whose words all occur in the request;
 * - 4 times the best share of an example's words that occur in the request (an example met
 *   whole scores 4);
 * - 1 for each word of its name that occurs in the request;
 * - 0.5 for each word of its description that occurs in the request, at most 2.
 *
 * Words of fewer than two letters and common English words count nowhere. The skill with the
 * highest score wins if it reaches {@link MIN_SCORE}; on a tie, the peer listed first. Below
 * that, nothing fits, and the orchestrator says which skills exist instead.
 */

import type { AgentCard } from '../../client.js';
import type { Peer } from './peer-directory.js';

/** The least score that routes a request. */
export const MIN_SCORE = 2;

/** A skill of a peer. */
export interface PeerSkill {
  readonly peer: Peer;
  readonly skill: AgentCard['skills'][number];
}

/** The chosen skill and its score. */
export interface Route extends PeerSkill {
  readonly score: number;
}

const STOP_WORDS = new Set(
  (
    'a an and are as at be but by can do does for from have how i in is it me my of on or ' +
    'please so that the this to was what when where which who why will with you your'
  ).split(' '),
);

const SUFFIXES = ['ions', 'ion', 'ing', 'ed', 'es', 's', 'e'];

function stem(word: string): string {
  for (const suffix of SUFFIXES) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 3) {
      return word.slice(0, -suffix.length);
    }
  }
  return word;
}

/** The words of a text as the score compares them. */
export function wordsOf(text: string): string[] {
  const words: string[] = [];
  for (const raw of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (raw.length < 2 && !/\d/.test(raw)) continue;
    if (raw === '' || STOP_WORDS.has(raw)) continue;
    words.push(stem(raw).replace(/\d+/g, '0'));
  }
  return words;
}

/** The score of one skill for a request's words (see the module documentation). */
export function scoreSkill(skill: PeerSkill['skill'], request: ReadonlySet<string>): number {
  const has = (word: string) => request.has(word);
  let score = 0;
  for (const tag of skill.tags) {
    const words = wordsOf(tag);
    if (words.length > 0 && words.every(has)) score += 3;
  }
  let best = 0;
  for (const example of skill.examples ?? []) {
    const words = new Set(wordsOf(example));
    if (words.size === 0) continue;
    best = Math.max(best, [...words].filter(has).length / words.size);
  }
  score += 4 * best;
  score += [...new Set(wordsOf(skill.name))].filter(has).length;
  const described = [...new Set(wordsOf(skill.description))].filter(has).length;
  score += Math.min(2, 0.5 * described);
  return score;
}

/** Every skill of every peer, in the order of the peers and of their cards. */
export function skillsOf(peers: readonly Peer[]): PeerSkill[] {
  return peers.flatMap((peer) => peer.card.skills.map((skill) => ({ peer, skill })));
}

/** The best-scoring skill for `text`, or `undefined` when none reaches {@link MIN_SCORE}. */
export function routeByScore(text: string, peers: readonly Peer[]): Route | undefined {
  const request = new Set(wordsOf(text));
  let best: Route | undefined;
  for (const candidate of skillsOf(peers)) {
    const score = scoreSkill(candidate.skill, request);
    if (score >= MIN_SCORE && (best === undefined || score > best.score)) {
      best = { ...candidate, score };
    }
  }
  return best;
}

/** The answer to a request that no skill fits: which skills exist, and where. */
export function describeSkills(peers: readonly Peer[], unreachable: number): string {
  const lines = skillsOf(peers).map(({ peer, skill }) => {
    const example = skill.examples?.[0];
    return `- ${peer.card.name}: ${skill.name} — ${skill.description}${example === undefined ? '' : ` (e.g. "${example}")`}`;
  });
  const away =
    unreachable === 0
      ? ''
      : `\n(${unreachable} more agent${unreachable === 1 ? '' : 's'} could not be reached.)`;
  if (lines.length === 0) return `No agent I delegate to is available right now.${away}`;
  return `None of the agents I delegate to has a skill for that. The skills available:\n${lines.join('\n')}${away}`;
}
