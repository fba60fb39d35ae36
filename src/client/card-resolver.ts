/**
 * Agent card discovery (spec 8.2) with an HTTP cache (spec 8.6.2). A resolver owns its cache, so
 * that an application can scope cards (per tenant, per test) while clients created without one
 * share a module-level resolver. The card is validated as an A2A 1.0 `AgentCard`, and a card that
 * is not one is refused with every problem listed: a card is the contract of everything that
 * follows, so it is checked once, here. An A2A 0.3 card (`url` and no `supportedInterfaces`) is
 * first read into the 1.0 shape by the 0.3 translation layer, loaded only then, and judged by
 * 0.3's rules: what 0.3 allows and 1.0 does not (no skills) is accepted with a warning (see
 * `v03-card-reading.ts`). A base URL whose `agent-card.json` is not found is tried at the legacy
 * `agent.json`.
 */

import type { FieldViolation } from '../protocol/error-details.js';
import type { AgentCard } from '../protocol/generated/types.js';
import { ConfigurationError } from '../protocol/local-errors.js';
import { CURRENT_PROTOCOL_VERSION, VERSION_HEADER } from '../protocol/version.js';
import { parseMessage } from '../protocol/validation.js';
import { createHttpSend, type FetchFunction, type HttpSend } from '../bindings/client/http-send.js';
import { formatViolations } from '../bindings/client/response-validation.js';
import { httpStatusError, readBodyText } from '../bindings/client/transport-http.js';
import { cardFreshness } from './card-cache-policy.js';
import { CallScope } from './call-scope.js';
import { AgentCardError, HttpStatusError } from './client-errors.js';
import {
  applyInterceptors,
  misroutedCall,
  type AgentCardCall,
  type AgentCardCallResult,
  type Interceptor,
} from './interceptor.js';
import { resolveRetryPolicy, withRetry, type RetryOptions } from './retry-policy.js';

import { AGENT_CARD_PATH } from './card-paths.js';
import {
  cardNotFoundMessage,
  listedAgentPaths,
  offersInterfaceAt,
  parentCardUrl,
} from './card-not-found.js';

export { AGENT_CARD_PATH };

/** Where A2A 0.2 and some 0.3 agents serve their card instead. */
const LEGACY_AGENT_CARD_PATH = '/.well-known/agent.json';

/**
 * Whether a card (JSON) is an A2A 0.x card: a `url` and no `supportedInterfaces`. A 1.0 card
 * always has `supportedInterfaces`; a 0.x card need not carry its `protocolVersion` to be one
 * (0.2 and some 0.3 servers leave it out). `tandem check` tells the versions apart the same way.
 */
export function isLegacyCard(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const card = value as { supportedInterfaces?: unknown; url?: unknown };
  return card.supportedInterfaces === undefined && typeof card.url === 'string';
}

/** A card as read, and what of A2A 1.0 it does not hold. */
export interface AgentCardReading {
  readonly card: AgentCard;
  /**
   * The 1.0 rules a 0.3 card does not hold, though 0.3 allowed it (`skills` empty, say), one
   * sentence each, naming the field; empty for a card that holds them all.
   */
  readonly warnings: readonly string[];
}

/**
 * Reads a card: a 1.0 card as it is; a 0.3 card translated to the 1.0 shape first and judged by
 * the rules of 0.3, with a warning for each 1.0 rule it does not hold.
 *
 * @throws AgentCardError listing every problem.
 */
export async function readAgentCardWithWarnings(
  value: unknown,
  url: string,
): Promise<AgentCardReading> {
  if (!isLegacyCard(value)) return { card: parseAgentCard(value, url), warnings: [] };
  const { readV03Card, UntranslatableError } =
    await import('../bindings/v0_3/translate/v03-client-card.js');
  let reading: ReturnType<typeof readV03Card>;
  try {
    reading = readV03Card(value);
  } catch (error) {
    if (!(error instanceof UntranslatableError)) throw error;
    throw new AgentCardError(`The A2A 0.3 agent card at ${url} cannot be read: ${error.message}`, [
      ...error.violations,
    ]);
  }
  if (!reading.success) throw invalidCardError(reading.violations, url, value);
  return { card: reading.card, warnings: reading.warnings };
}

/**
 * Reads a card, like {@link readAgentCardWithWarnings}, without the warnings.
 *
 * @throws AgentCardError listing every problem.
 */
export async function readAgentCard(value: unknown, url: string): Promise<AgentCard> {
  return (await readAgentCardWithWarnings(value, url)).card;
}

/** A card and where it came from (the base of relative interface URLs). */
export interface ResolvedAgentCard {
  readonly card: AgentCard;
  readonly url: string;
  /** What of A2A 1.0 the card does not hold (see {@link AgentCardReading.warnings}). */
  readonly warnings?: readonly string[];
}

/** Options of one {@link CardResolver.resolve}. */
export interface CardResolveOptions {
  readonly signal?: AbortSignal | undefined;
  /** Time limit of the whole fetch, retries included, in ms. Default 60 s. */
  readonly timeoutMs?: number | undefined;
  /** Retries on network errors and 502/503/504; `false` disables. */
  readonly retry?: RetryOptions | false | undefined;
  /** Headers added to the request. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /**
   * Interceptors the fetch goes through, as the call `GetAgentCard` (each attempt);
   * `createClient` passes its own.
   */
  readonly interceptors?: readonly Interceptor[] | undefined;
  /** The `fetch` to use. Defaults to the global one. */
  readonly fetch?: FetchFunction | undefined;
  /** The largest card body read, in bytes. Default `DEFAULT_MAX_RESPONSE_BYTES` (32 MiB). */
  readonly maxResponseBytes?: number | undefined;
}

/** Fetches and caches agent cards. */
export interface CardResolver {
  /**
   * The card of an agent, given its base URL or its card URL (see {@link agentCardUrl}); from
   * the cache while fresh, revalidated with `If-None-Match` once stale.
   *
   * @throws AgentCardError when the card cannot be fetched or is not a valid A2A 1.0 card.
   */
  resolve(url: string, options?: CardResolveOptions): Promise<ResolvedAgentCard>;
  /** Forgets the cached card of `url` (a base or card URL), or every card. */
  clear(url?: string): void;
}

/** Options of {@link createCardResolver}. */
export interface CardResolverOptions {
  /** Freshness of a card served without caching headers, in ms. Default 0 (always revalidate). */
  readonly defaultMaxAgeMs?: number | undefined;
  /** The clock, in ms since the epoch. */
  readonly now?: (() => number) | undefined;
}

interface CacheEntry {
  readonly card: AgentCard;
  readonly warnings: readonly string[];
  readonly etag: string | undefined;
  expiresAt: number;
}

/**
 * The card URL of an agent: a URL ending in `.json` or containing `/.well-known/` is the card
 * URL itself; any other URL is the agent's base URL and gets `/.well-known/agent-card.json`
 * appended to its path.
 *
 * @throws ConfigurationError for a URL that is not absolute http(s).
 */
export function agentCardUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    throw new ConfigurationError(
      `${JSON.stringify(url)} is not an absolute URL; use the agent's base URL, e.g. ` +
        'https://agent.example.com, or its card URL',
      { cause: error },
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigurationError(`${url} is not an http(s) URL; A2A agents are reached over HTTP`);
  }
  parsed.hash = '';
  if (parsed.pathname.endsWith('.json') || parsed.pathname.includes('/.well-known/')) {
    return parsed.toString();
  }
  parsed.pathname = parsed.pathname.replace(/\/+$/, '') + AGENT_CARD_PATH;
  return parsed.toString();
}

/**
 * Validates a card.
 *
 * @throws AgentCardError listing every violation.
 */
export function parseAgentCard(value: unknown, url: string, original: unknown = value): AgentCard {
  const parsed = parseMessage('AgentCard', value);
  if (parsed.success) return parsed.value;
  throw invalidCardError(parsed.violations, url, original);
}

function invalidCardError(
  violations: readonly FieldViolation[],
  url: string,
  original: unknown,
): AgentCardError {
  const legacy =
    typeof original === 'object' && original !== null
      ? (original as { protocolVersion?: unknown }).protocolVersion
      : undefined;
  const hint =
    typeof legacy === 'string'
      ? `; it looks like an A2A ${legacy} card, read as this client reads 0.3 cards (docs/compat-0.3.md)`
      : '';
  return new AgentCardError(
    `The agent card at ${url} is not a valid A2A ${CURRENT_PROTOCOL_VERSION} card ` +
      `(${violations.length} problem${violations.length === 1 ? '' : 's'}: ` +
      `${formatViolations(violations)})${hint}`,
    violations,
  );
}

/** Creates a resolver with a cache of its own. */
export function createCardResolver(options: CardResolverOptions = {}): CardResolver {
  const cache = new Map<string, CacheEntry>();
  const now = options.now ?? Date.now;
  const defaultLifetime = options.defaultMaxAgeMs ?? 0;

  /** One attempt: the card from the wire, or the cached one when it is still valid (304). */
  async function fetchCard(
    url: string,
    call: CardResolveOptions,
    send: HttpSend,
    signal: AbortSignal,
  ) {
    const cached = cache.get(url);
    const headers = new Headers(call.headers);
    headers.set('accept', 'application/json');
    headers.set(VERSION_HEADER, CURRENT_PROTOCOL_VERSION);
    if (cached?.etag !== undefined) headers.set('if-none-match', cached.etag);
    /** What the wire answered, to cache once the interceptors have returned it. */
    const wire: {
      fetched?: Omit<CacheEntry, 'expiresAt'> & { headers: Headers; received: number };
    } = {};
    const get = async (cardCall: AgentCardCall): Promise<AgentCardCallResult> => {
      const request = new Request(cardCall.url, {
        method: 'GET',
        headers: cardCall.headers,
        signal: cardCall.signal,
      });
      const response = await send(request);
      const received = now();
      const text = await readBodyText(response, request, call.maxResponseBytes);
      if (response.status === 304 && cached !== undefined) {
        wire.fetched = {
          card: cached.card,
          warnings: cached.warnings,
          etag: cached.etag,
          headers: response.headers,
          received,
        };
        return { stream: false, message: cached.card, headers: response.headers };
      }
      if (!response.ok) throw httpStatusError(response, text, request);
      let value: unknown;
      try {
        value = JSON.parse(text) as unknown;
      } catch (error) {
        const type = (response.headers.get('content-type') ?? 'no content type').split(';')[0];
        throw new AgentCardError(
          `${url} answered ${type === 'text/html' ? 'an HTML page' : `${type}, not JSON`}, ` +
            "not an agent card; give the agent's base URL or its card URL",
          [],
          { cause: error },
        );
      }
      const { card, warnings } = await readAgentCardWithWarnings(value, url);
      const etag = response.headers.get('etag') ?? undefined;
      wire.fetched = { card, warnings, etag, headers: response.headers, received };
      return { stream: false, message: card, headers: response.headers };
    };
    const chain = applyInterceptors(call.interceptors ?? [], (cardCall) =>
      cardCall.operation === 'GetAgentCard'
        ? get(cardCall)
        : misroutedCall(cardCall, 'the card fetch'),
    );
    const cardCall: AgentCardCall = {
      stream: false,
      operation: 'GetAgentCard',
      message: NO_MESSAGE,
      url,
      headers,
      signal,
    };
    const card = ((await chain(cardCall)) as AgentCardCallResult).message;
    // A card an interceptor answered by itself is checked like any other, and not cached.
    const fetched = wire.fetched;
    if (fetched === undefined || fetched.card !== card) return readAgentCardWithWarnings(card, url);
    const { warnings } = fetched;
    const freshness = cardFreshness(fetched.headers, fetched.received, defaultLifetime);
    if (freshness.store) {
      cache.set(url, { card, warnings, etag: fetched.etag, expiresAt: freshness.expiresAt });
    } else cache.delete(url);
    return { card, warnings };
  }

  return {
    async resolve(input, call = {}) {
      const url = agentCardUrl(input);
      const cached = cache.get(url);
      if (cached !== undefined && now() < cached.expiresAt) {
        return { card: cached.card, url, warnings: cached.warnings };
      }
      const scope = new CallScope(call.signal, call.timeoutMs ?? 60_000);
      const send = createHttpSend(call.fetch);
      try {
        const policy = resolveRetryPolicy(call.retry);
        const fetchFrom = (from: string) =>
          withRetry(() => fetchCard(from, call, send, scope.signal), policy, scope.signal);
        try {
          return { ...(await fetchFrom(url)), url };
        } catch (error) {
          if (!(error instanceof HttpStatusError) || error.status !== 404) throw error;
          const found = await findElsewhere(url, (from) => {
            const hit = cache.get(from);
            return hit !== undefined && now() < hit.expiresAt
              ? { card: hit.card, warnings: hit.warnings }
              : fetchFrom(from);
          });
          if (found !== undefined) return found;
          const paths = await listedAgentPaths(url, (listing) =>
            send(
              new Request(listing, {
                headers: { accept: 'application/json' },
                signal: scope.signal,
              }),
            ),
          );
          throw new AgentCardError(cardNotFoundMessage(url, paths), [], { cause: error });
        }
      } catch (error) {
        if (scope.callerAborted || error instanceof AgentCardError) throw error;
        const reason = error instanceof Error ? error.message : String(error);
        throw new AgentCardError(`Could not fetch the agent card at ${url}: ${reason}`, [], {
          cause: error,
        });
      } finally {
        scope.clearTimeout();
      }
    },
    clear(url) {
      if (url === undefined) cache.clear();
      else cache.delete(agentCardUrl(url));
    },
  };
}

const NO_MESSAGE: Readonly<Record<string, never>> = Object.freeze({});

/**
 * The card meant by a URL whose own card is not found: the legacy `agent.json` of 0.2 and early
 * 0.3 agents, or the card one level up when the URL is one of its interfaces (`…/dice/a2a`
 * given for `…/dice`). Undefined when neither is there.
 */
async function findElsewhere(
  url: string,
  fetchFrom: (from: string) => AgentCardReading | Promise<AgentCardReading>,
): Promise<ResolvedAgentCard | undefined> {
  // A failure at either place leaves the first answer, the 404, to be explained: these are
  // guesses at what the URL meant, and their errors would answer a question nobody asked.
  const attempt = async (from: string): Promise<AgentCardReading | undefined> => {
    try {
      return await fetchFrom(from);
    } catch {
      return undefined;
    }
  };
  const legacy = legacyCardUrl(url);
  const legacyReading = legacy === undefined ? undefined : await attempt(legacy);
  if (legacy !== undefined && legacyReading !== undefined) return { ...legacyReading, url: legacy };
  const parent = parentCardUrl(url);
  const reading = parent === undefined ? undefined : await attempt(parent);
  return parent !== undefined &&
    reading !== undefined &&
    offersInterfaceAt(reading.card, url, parent)
    ? { ...reading, url: parent }
    : undefined;
}

/** The legacy card URL to try when `url` is at the well-known path and was not found. */
function legacyCardUrl(url: string): string | undefined {
  const parsed = new URL(url);
  if (!parsed.pathname.endsWith(AGENT_CARD_PATH)) return undefined;
  parsed.pathname = parsed.pathname.slice(0, -AGENT_CARD_PATH.length) + LEGACY_AGENT_CARD_PATH;
  return parsed.toString();
}

/** The resolver of clients created without one. */
export const sharedCardResolver: CardResolver = createCardResolver();
