/**
 * What discovery does when there is no card where the URL points (HTTP 404): the two mistakes
 * users make most are a typo in the agent's path (`/agents/dcie`) and an interface URL given
 * where the base URL belongs (`…/dice/a2a`, copied from a card or a log). The second is
 * understood — the card one level up that lists the URL as an interface is the card meant — and
 * the first is explained with the agents the server says it has (a Tandem server lists them at
 * `GET /`), in one line that pastes no HTML.
 */

import type { AgentCard } from '../protocol/generated/types.js';
import { AGENT_CARD_PATH } from './card-paths.js';

/** The same URL without a trailing slash, query or fragment, for comparison. */
function normalized(url: string): string {
  const parsed = new URL(url);
  parsed.hash = '';
  parsed.search = '';
  return parsed.toString().replace(/\/+$/, '');
}

/**
 * The card URL one path segment up from a base URL's card (`…/dice/a2a` → `…/dice`), or
 * undefined when the card URL was not built from a base URL or the base is the origin.
 */
export function parentCardUrl(cardUrl: string): string | undefined {
  const parsed = new URL(cardUrl);
  if (!parsed.pathname.endsWith(AGENT_CARD_PATH)) return undefined;
  const base = parsed.pathname.slice(0, -AGENT_CARD_PATH.length).replace(/\/+$/, '');
  const cut = base.lastIndexOf('/');
  if (base === '' || cut < 0) return undefined;
  parsed.pathname = base.slice(0, cut) + AGENT_CARD_PATH;
  parsed.search = '';
  return parsed.toString();
}

/** The base URL a card URL was built from: `…/dice/.well-known/agent-card.json` → `…/dice`. */
function baseOf(cardUrl: string): string {
  const parsed = new URL(cardUrl);
  parsed.search = '';
  parsed.pathname = parsed.pathname.endsWith(AGENT_CARD_PATH)
    ? parsed.pathname.slice(0, -AGENT_CARD_PATH.length)
    : parsed.pathname;
  return parsed.toString().replace(/\/+$/, '');
}

/** Whether `card` offers an interface at `cardUrl`'s base URL: the URL was an interface's. */
export function offersInterfaceAt(card: AgentCard, cardUrl: string, cardOrigin: string): boolean {
  const wanted = baseOf(cardUrl);
  return card.supportedInterfaces.some((entry) => {
    try {
      return normalized(new URL(entry.url, cardOrigin).toString()) === wanted;
    } catch {
      return false;
    }
  });
}

/**
 * The agent paths a server lists at `GET /` (Tandem's `{"agents": [{"path": …}]}`), or
 * undefined when it lists none or the listing cannot be read — the listing only improves an
 * error message, so its own failure is no error.
 */
export async function listedAgentPaths(
  cardUrl: string,
  get: (url: string) => Promise<Response>,
): Promise<string[] | undefined> {
  let value: unknown;
  try {
    const response = await get(new URL('/', cardUrl).toString());
    if (!response.ok) return undefined;
    value = JSON.parse(await response.text()) as unknown;
  } catch {
    return undefined;
  }
  const agents = (value as { agents?: unknown } | null)?.agents;
  if (!Array.isArray(agents)) return undefined;
  const paths = agents.flatMap((agent: unknown) => {
    const path = (agent as { path?: unknown } | null)?.path;
    return typeof path === 'string' && path !== '' ? [path] : [];
  });
  return paths.length === 0 ? undefined : paths;
}

/** The longest list of agents a message shows; the rest are counted. */
const SHOWN_AGENTS = 6;

/**
 * The one line for a card that is not there: what was found, and one next step (the agents the
 * server has, or what URL to give).
 */
export function cardNotFoundMessage(cardUrl: string, agentPaths: readonly string[] | undefined) {
  const parsed = new URL(cardUrl);
  const found = `${parsed.origin} is an HTTP server, but there is no agent card at ${parsed.pathname} (HTTP 404)`;
  if (agentPaths === undefined) {
    return (
      `${found}; give the agent's base URL (its card is at <base>${AGENT_CARD_PATH}) ` +
      'or the card URL itself'
    );
  }
  const shown = agentPaths.slice(0, SHOWN_AGENTS).join(', ');
  const more =
    agentPaths.length > SHOWN_AGENTS ? ` and ${agentPaths.length - SHOWN_AGENTS} more` : '';
  return `${found}; the agents there are ${shown}${more}: use ${parsed.origin}<path>`;
}
