/**
 * Finding the agent card the way the client finds it (`agentCardUrl`: a base URL gets
 * `/.well-known/agent-card.json`, a `.json` or `/.well-known/` URL is the card; a 404 at the
 * well-known path is tried at the legacy `agent.json`), but keeping every exchange: the card
 * checks judge the answer itself (status, media type, caching headers, the body as received).
 * Only a card that cannot be fetched at all — no HTTP answer — stops the run.
 *
 * The card is read twice: strictly (the 1.0 `AgentCard` schema, or a 0.3 card translated and then
 * validated, with every violation) for the card checks, and leniently for planning, so that an
 * invalid card (one without `skills`, say) still has its interfaces checked.
 */

import type { FieldViolation } from '../protocol/error-details.js';
import type { AgentCard } from '../protocol/generated/types.js';
import { parseMessage } from '../protocol/validation.js';
import { agentCardUrl, AGENT_CARD_PATH, isLegacyCard } from '../client/card-resolver.js';
import { UntranslatableError } from '../bindings/v0_3/translate/untranslatable.js';
import { readV03Card } from '../bindings/v0_3/translate/v03-card-reading.js';
import { AgentUnreachableError } from './check-errors.js';
import type { CheckProtocolVersion } from './check-types.js';
import { sendHttp } from './probe/http-probe.js';
import type { ProbeEnvironment } from './probe/probe-environment.js';
import type { HttpAnswer } from './wire/http-wire.js';
import type { Exchange } from './wire/wire-exchange.js';

const LEGACY_CARD_PATH = '/.well-known/agent.json';

/** One fetch of a card URL. */
export interface CardFetch {
  readonly url: string;
  readonly answer: HttpAnswer;
  readonly exchange: Exchange;
}

/** The card as found. */
export interface DiscoveredCard {
  /** The URL the run was started with. */
  readonly inputUrl: string;
  /** The well-known card URL of the agent's base (what `card.well-known` asks for). */
  readonly wellKnownUrl: string;
  /** Every fetch made, in order; the last one is the card's. */
  readonly fetches: readonly CardFetch[];
  /** The fetch that found the card (a 2xx), if any. */
  readonly found: CardFetch | undefined;
  /** The body as JSON, when it is JSON. */
  readonly json: unknown;
  /** Which version the card is written in. */
  readonly form: CheckProtocolVersion;
  /** The card, valid (a 0.3 card in its 1.0 translation); `undefined` when it is not. */
  readonly card: AgentCard | undefined;
  /** Every violation of the strict reading. */
  readonly violations: readonly FieldViolation[];
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

async function fetchCard(environment: ProbeEnvironment, url: string): Promise<CardFetch> {
  let current = url;
  for (let hop = 0; hop < 5; hop++) {
    const sent = await sendHttp(environment, {
      method: 'GET',
      url: current,
      headers: [['Accept', 'application/json'], ['A2A-Version', '1.0'], ...environment.headers],
    });
    if ('failure' in sent) {
      throw new AgentUnreachableError(
        `The agent card at ${current} could not be fetched: ${sent.failure}; check the URL and that the agent is running`,
      );
    }
    const location = sent.answer.header('location');
    if (sent.answer.status >= 300 && sent.answer.status < 400 && location !== undefined) {
      current = new URL(location, current).toString();
      continue;
    }
    return { url: current, answer: sent.answer, exchange: sent.exchange };
  }
  throw new AgentUnreachableError(`The agent card at ${url} redirects more than 5 times`);
}

/**
 * The well-known card URL of a card URL: the base below `/.well-known/`; for a card URL
 * elsewhere (`/cards/agent.json`), the origin's.
 */
function wellKnownOf(cardUrl: string): string {
  const parsed = new URL(cardUrl);
  const index = parsed.pathname.indexOf('/.well-known/');
  parsed.pathname =
    index === -1 ? AGENT_CARD_PATH : parsed.pathname.slice(0, index) + AGENT_CARD_PATH;
  parsed.search = '';
  return parsed.toString();
}

/**
 * Whether a card is written in 0.3: a `url` and no `supportedInterfaces`, as the client reads it
 * — a 0.3 card that lost its `protocolVersion` is still a 0.3 card with a defect, not a 1.0 card
 * without interfaces.
 */
export { isLegacyCard };

/** Reads a card strictly: the 1.0 schema, or a 0.3 card by the rules of 0.3. */
export function readCardStrictly(json: unknown): {
  form: CheckProtocolVersion;
  card: AgentCard | undefined;
  violations: FieldViolation[];
} {
  if (isLegacyCard(json)) {
    // By 0.3's own rules (`skills: []` is valid 0.3), as the client reads it; a missing
    // protocolVersion is the protocol-version check's to report.
    let reading: ReturnType<typeof readV03Card>;
    try {
      reading = readV03Card(json);
    } catch (error) {
      if (!(error instanceof UntranslatableError)) throw error;
      return { form: '0.3', card: undefined, violations: [...error.violations] };
    }
    return reading.success
      ? { form: '0.3', card: reading.card, violations: [] }
      : { form: '0.3', card: undefined, violations: [...reading.violations] };
  }
  const parsed = parseMessage('AgentCard', json);
  return parsed.success
    ? { form: '1.0', card: parsed.value, violations: [] }
    : { form: '1.0', card: undefined, violations: parsed.violations };
}

/**
 * Fetches the card of the agent at `url`.
 *
 * @throws AgentUnreachableError when no HTTP answer came.
 */
export async function discoverCard(
  environment: ProbeEnvironment,
  url: string,
): Promise<DiscoveredCard> {
  const cardUrl = agentCardUrl(url);
  const fetches: CardFetch[] = [await fetchCard(environment, cardUrl)];
  const first = fetches[0] as CardFetch;
  if (first.answer.status === 404 && new URL(first.url).pathname.endsWith(AGENT_CARD_PATH)) {
    const legacy = new URL(first.url);
    legacy.pathname = legacy.pathname.slice(0, -AGENT_CARD_PATH.length) + LEGACY_CARD_PATH;
    fetches.push(await fetchCard(environment, legacy.toString()));
  }
  const last = fetches[fetches.length - 1] as CardFetch;
  const found = last.answer.status >= 200 && last.answer.status < 300 ? last : undefined;
  const json = found === undefined ? undefined : parseJson(found.answer.text);
  const strict =
    json === undefined
      ? { form: '1.0' as const, card: undefined, violations: [] }
      : readCardStrictly(json);
  return {
    inputUrl: url,
    wellKnownUrl: wellKnownOf(cardUrl),
    fetches,
    found,
    json,
    form: strict.form,
    card: strict.card,
    violations: strict.violations,
  };
}
