/**
 * Agent card discovery (spec 8.2) with an HTTP cache (spec 8.6.2). A resolver owns its cache, so
 * that an application can scope cards (per tenant, per test) while clients created without one
 * share a module-level resolver. The card is validated as an A2A 1.0 `AgentCard`, and a card that
 * is not one is refused with every problem listed: a card is the contract of everything that
 * follows, so it is checked once, here. An A2A 0.3 card (no `supportedInterfaces`, a 0.x
 * `protocolVersion`) is first read into the 1.0 shape by the 0.3 translation layer, loaded only
 * then; a base URL whose `agent-card.json` is not found is tried at the legacy `agent.json`.
 */

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

/** The path of the well-known card below an agent's base URL (spec 8.2, 14.3). */
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

/** Where A2A 0.2 and some 0.3 agents serve their card instead. */
const LEGACY_AGENT_CARD_PATH = '/.well-known/agent.json';

/** Whether a card (JSON) is an A2A 0.x card: no `supportedInterfaces`, a `0.` protocol version. */
function looksLegacy(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const card = value as { supportedInterfaces?: unknown; protocolVersion?: unknown; url?: unknown };
  return (
    card.supportedInterfaces === undefined &&
    typeof card.protocolVersion === 'string' &&
    card.protocolVersion.trim().startsWith('0.') &&
    typeof card.url === 'string'
  );
}

/**
 * Reads a card: a 1.0 card as it is, a 0.3 card translated to the 1.0 shape first, then
 * validated either way.
 *
 * @throws AgentCardError listing every problem.
 */
export async function readAgentCard(value: unknown, url: string): Promise<AgentCard> {
  if (!looksLegacy(value)) return parseAgentCard(value, url);
  const { cardFromV03, UntranslatableError } =
    await import('../bindings/v0_3/translate/v03-client-card.js');
  let translated: unknown;
  try {
    translated = cardFromV03(value as Record<string, unknown>);
  } catch (error) {
    if (!(error instanceof UntranslatableError)) throw error;
    throw new AgentCardError(`The A2A 0.3 agent card at ${url} cannot be read: ${error.message}`, [
      ...error.violations,
    ]);
  }
  return parseAgentCard(translated, url, value);
}

/** A card and where it came from (the base of relative interface URLs). */
export interface ResolvedAgentCard {
  readonly card: AgentCard;
  readonly url: string;
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
  const legacy =
    typeof original === 'object' && original !== null
      ? (original as { protocolVersion?: unknown }).protocolVersion
      : undefined;
  const hint =
    typeof legacy === 'string'
      ? `; it looks like an A2A ${legacy} card, read as this client reads 0.3 cards (docs/compat-0.3.md)`
      : '';
  throw new AgentCardError(
    `The agent card at ${url} is not a valid A2A ${CURRENT_PROTOCOL_VERSION} card ` +
      `(${parsed.violations.length} problem${parsed.violations.length === 1 ? '' : 's'}: ` +
      `${formatViolations(parsed.violations)})${hint}`,
    parsed.violations,
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
        throw new AgentCardError(`The agent card at ${url} is not JSON`, [], { cause: error });
      }
      const card = await readAgentCard(value, url);
      const etag = response.headers.get('etag') ?? undefined;
      wire.fetched = { card, etag, headers: response.headers, received };
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
    if (fetched === undefined || fetched.card !== card) return readAgentCard(card, url);
    const freshness = cardFreshness(fetched.headers, fetched.received, defaultLifetime);
    if (freshness.store)
      cache.set(url, { card, etag: fetched.etag, expiresAt: freshness.expiresAt });
    else cache.delete(url);
    return card;
  }

  return {
    async resolve(input, call = {}) {
      const url = agentCardUrl(input);
      const cached = cache.get(url);
      if (cached !== undefined && now() < cached.expiresAt) return { card: cached.card, url };
      const scope = new CallScope(call.signal, call.timeoutMs ?? 60_000);
      const send = createHttpSend(call.fetch);
      try {
        const policy = resolveRetryPolicy(call.retry);
        const fetchFrom = (from: string) =>
          withRetry(() => fetchCard(from, call, send, scope.signal), policy, scope.signal);
        try {
          return { card: await fetchFrom(url), url };
        } catch (error) {
          // 0.2 and early 0.3 agents serve their card at the legacy path only.
          const legacy = legacyCardUrl(url);
          if (legacy === undefined || !(error instanceof HttpStatusError) || error.status !== 404) {
            throw error;
          }
          const cachedLegacy = cache.get(legacy);
          if (cachedLegacy !== undefined && now() < cachedLegacy.expiresAt) {
            return { card: cachedLegacy.card, url: legacy };
          }
          try {
            return { card: await fetchFrom(legacy), url: legacy };
          } catch {
            throw error;
          }
        }
      } catch (error) {
        if (scope.callerAborted || error instanceof AgentCardError) throw error;
        const reason = error instanceof Error ? error.message : String(error);
        const hint =
          error instanceof HttpStatusError && error.status === 404
            ? '; is this the agent base URL? Pass the card URL if it lives elsewhere'
            : '';
        throw new AgentCardError(`Could not fetch the agent card at ${url}: ${reason}${hint}`, [], {
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

/** The legacy card URL to try when `url` is at the well-known path and was not found. */
function legacyCardUrl(url: string): string | undefined {
  const parsed = new URL(url);
  if (!parsed.pathname.endsWith(AGENT_CARD_PATH)) return undefined;
  parsed.pathname = parsed.pathname.slice(0, -AGENT_CARD_PATH.length) + LEGACY_AGENT_CARD_PATH;
  return parsed.toString();
}

/** The resolver of clients created without one. */
export const sharedCardResolver: CardResolver = createCardResolver();
