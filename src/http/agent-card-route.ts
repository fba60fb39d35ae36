/**
 * The agent card route (spec 8.2, 8.6): `GET <agent>/.well-known/agent-card.json`. The card is
 * the handler's card plus the interfaces this server adds — one per binding mounted for the agent,
 * as absolute URLs (spec 8.3), and any served elsewhere (gRPC's `host:port`) — so it depends on the
 * base URL the client used. Each distinct base URL gets its card built, validated, serialized and
 * hashed once; a request then costs a map lookup. The cache is bounded so that forged `Host`
 * headers cannot grow it without limit.
 *
 * Caching follows spec 8.6.1: `Cache-Control: public, max-age=<n>`, a strong `ETag` (a SHA-256 of
 * the JSON) and `Last-Modified` (when this server first built the card), with `304 Not Modified`
 * for a matching `If-None-Match`, or — without one — an `If-Modified-Since` not older than it
 * (RFC 9110 13.2.2).
 */

import { cardWithInterfaces } from '../bindings/server/operation-table.js';
import type {
  AgentCard,
  AgentInterface,
  SecurityRequirement,
  SecurityScheme,
} from '../protocol/generated/types.js';
import { ConfigurationError } from '../protocol/local-errors.js';
import { parseMessage } from '../protocol/validation.js';
import type { A2ARequestHandler } from '../runtime/request-handler.js';
import type { CardSignerLike } from './http-options.js';

/** The authentication a server enforces, as its cards declare it. */
export interface CardSecurity {
  readonly securitySchemes: Readonly<Record<string, SecurityScheme>>;
  readonly securityRequirements: readonly SecurityRequirement[];
}

/**
 * The card with the server's security: its schemes added to the agent's, and its requirements in
 * place of the agent's (the card says what is enforced, spec 7.3).
 */
export function withSecurity(card: AgentCard, security: CardSecurity | undefined): AgentCard {
  if (security === undefined) return card;
  return {
    ...card,
    securitySchemes: { ...card.securitySchemes, ...security.securitySchemes },
    securityRequirements: security.securityRequirements.map((requirement) => ({
      ...requirement,
    })),
  };
}

/** A card ready to serve for one base URL. */
export interface ServedCard {
  readonly card: AgentCard;
  readonly json: string;
  /** A strong validator, quoted: `"<base64url of SHA-256>"`. */
  readonly etag: string;
  /** When this server first served this card, as an HTTP date. */
  readonly lastModified: string;
  /** The same instant, in epoch seconds (HTTP dates have no finer resolution). */
  readonly lastModifiedSeconds: number;
}

const MAX_CACHED_BASES = 64;

/**
 * Checks a card against the AgentCard schema.
 *
 * @throws ConfigurationError listing every violation: a server must never serve an invalid card.
 */
export function assertValidCard(card: AgentCard, agentPath: string): void {
  const result = parseMessage('AgentCard', card);
  if (result.success) return;
  const problems = result.violations.map((v) => `${v.field}: ${v.description}`).join('; ');
  throw new ConfigurationError(
    `The agent card of the agent at ${JSON.stringify(agentPath || '/')} is invalid (${problems}); ` +
      'fix the card passed to defineAgent',
  );
}

async function sha256Tag(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  let binary = '';
  for (const byte of new Uint8Array(digest)) binary += String.fromCharCode(byte);
  return `"${btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}"`;
}

/** The cards of one agent, per base URL. */
export class AgentCardCache {
  readonly #handler: A2ARequestHandler;
  readonly #agentPath: string;
  readonly #interfaces: (baseUrl: string) => AgentInterface[];
  readonly #security: CardSecurity | undefined;
  readonly #signer: CardSignerLike | undefined;
  readonly #present: ((card: AgentCard) => AgentCard) | undefined;
  readonly #cards = new Map<string, Promise<ServedCard>>();
  readonly #lastModifiedSeconds = Math.floor(Date.now() / 1000);

  /**
   * Validates the card once with a placeholder URL, so that an invalid card fails at startup.
   *
   * @param interfaces the agent's interfaces under a base URL, the preferred first.
   * @param security what the server enforces, declared over the agent's own declaration.
   * @param signer signs each card once, when it is first built.
   * @param present the card as served, from the signed one (a compat layer's added fields).
   * @throws ConfigurationError when the handler's card is not a valid AgentCard.
   */
  constructor(
    handler: A2ARequestHandler,
    agentPath: string,
    interfaces: (baseUrl: string) => AgentInterface[],
    security?: CardSecurity,
    signer?: CardSignerLike,
    present?: (card: AgentCard) => AgentCard,
  ) {
    this.#signer = signer;
    this.#present = present;
    this.#handler = handler;
    this.#agentPath = agentPath;
    this.#interfaces = interfaces;
    this.#security = security;
    assertValidCard(this.#build('http://127.0.0.1'), agentPath);
  }

  /** The absolute card URL of the agent under `baseUrl`. */
  cardUrl(baseUrl: string): string {
    return baseUrl + this.#agentPath + '/.well-known/agent-card.json';
  }

  /** The interfaces the card declares under `baseUrl`, the preferred first. */
  interfaces(baseUrl: string): AgentInterface[] {
    return this.#interfaces(baseUrl);
  }

  /**
   * The card for `baseUrl`, built on first use.
   *
   * @throws ConfigurationError when the card with this base URL does not validate.
   */
  get(baseUrl: string): Promise<ServedCard> {
    let served = this.#cards.get(baseUrl);
    if (served === undefined) {
      if (this.#cards.size >= MAX_CACHED_BASES) {
        const oldest = this.#cards.keys().next();
        if (oldest.done !== true) this.#cards.delete(oldest.value);
      }
      served = this.#serve(baseUrl);
      this.#cards.set(baseUrl, served);
      // A failed build is not cached: the next request reports the error again.
      served.catch(() => this.#cards.delete(baseUrl));
    }
    return served;
  }

  #build(baseUrl: string): AgentCard {
    const card = cardWithInterfaces(this.#handler.card, this.interfaces(baseUrl));
    return withSecurity(card, this.#security);
  }

  /**
   * The card as served, with a compat layer's fields, signed. Each reading of it is signed as
   * served (spec 8.4.1 covers the card without `signatures`): a 1.0 client that verifies the card
   * it parsed sees the 1.0 fields only, while a verifier of the received JSON (§8.4.3, and a 0.3
   * client, whose fields the 1.0 card lacks) covers the whole card. With a compat layer that adds
   * fields, the card so carries two signatures by the same key — one over the 1.0 reading, one
   * over the card as served — and each verifier finds the one over what it reads.
   */
  async #signedAsServed(card: AgentCard): Promise<AgentCard> {
    const presented = this.#present?.(card) ?? card;
    const signer = this.#signer;
    if (signer === undefined) return presented;
    const existing = card.signatures ?? [];
    const signatures = [...existing, await signer.sign(card)];
    if (presented !== card) signatures.push(await signer.sign(presented));
    return { ...presented, signatures };
  }

  async #serve(baseUrl: string): Promise<ServedCard> {
    let card = this.#build(baseUrl);
    assertValidCard(card, this.#agentPath);
    card = await this.#signedAsServed(card);
    const json = JSON.stringify(card);
    const lastModifiedSeconds = this.#lastModifiedSeconds;
    return {
      card,
      json,
      etag: await sha256Tag(json),
      lastModified: new Date(lastModifiedSeconds * 1000).toUTCString(),
      lastModifiedSeconds,
    };
  }
}

/**
 * Whether an `If-None-Match` value matches `etag` (RFC 9110 13.1.2: weak comparison, so `W/`
 * prefixes are ignored; `*` matches any current representation; lists are comma-separated).
 */
export function ifNoneMatchMatches(header: string | null | undefined, etag: string): boolean {
  if (header === null || header === undefined) return false;
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag;
  for (const part of header.split(',')) {
    const tag = part.trim();
    if (tag === '*') return true;
    if ((tag.startsWith('W/') ? tag.slice(2) : tag) === opaque) return true;
  }
  return false;
}

/**
 * Whether a conditional GET may be answered `304 Not Modified` (RFC 9110 13.2.2): by
 * `If-None-Match` when present, else by an `If-Modified-Since` at or after `lastModifiedSeconds`
 * (an unparsable date is ignored, as the RFC says).
 */
export function notModified(
  ifNoneMatch: string | null | undefined,
  ifModifiedSince: string | null | undefined,
  served: Pick<ServedCard, 'etag' | 'lastModifiedSeconds'>,
): boolean {
  if (ifNoneMatch !== null && ifNoneMatch !== undefined) {
    return ifNoneMatchMatches(ifNoneMatch, served.etag);
  }
  if (ifModifiedSince === null || ifModifiedSince === undefined) return false;
  const since = Date.parse(ifModifiedSince);
  return !Number.isNaN(since) && Math.floor(since / 1000) >= served.lastModifiedSeconds;
}
