/**
 * The agent card route (spec 8.2, 8.6): `GET <agent>/.well-known/agent-card.json`. The card is
 * the handler's card plus the one interface this server adds — the agent's JSON-RPC endpoint as
 * an absolute URL (spec 8.3) — so it depends on the base URL the client used. Each distinct base
 * URL gets its card built, validated, serialized and hashed once; a request then costs a map
 * lookup. The cache is bounded so that forged `Host` headers cannot grow it without limit.
 *
 * Caching follows spec 8.6.1: `Cache-Control: public, max-age=<n>` and a strong `ETag` (a SHA-256
 * of the JSON), with `304 Not Modified` for a matching `If-None-Match`.
 */

import type { AgentCard, AgentInterface } from '../protocol/generated/types.js';
import { ConfigurationError } from '../protocol/local-errors.js';
import { CURRENT_PROTOCOL_VERSION } from '../protocol/version.js';
import { parseMessage } from '../protocol/validation.js';
import type { A2ARequestHandler } from '../runtime/request-handler.js';

/** A card ready to serve for one base URL. */
export interface ServedCard {
  readonly card: AgentCard;
  readonly json: string;
  /** A strong validator, quoted: `"<base64url of SHA-256>"`. */
  readonly etag: string;
}

const MAX_CACHED_BASES = 64;

/** The JSON-RPC interface of an agent at `url`. */
export function jsonRpcInterface(url: string): AgentInterface {
  return { url, protocolBinding: 'JSONRPC', protocolVersion: CURRENT_PROTOCOL_VERSION };
}

/** The handler's card with `supportedInterfaces` in the proto's position (after description). */
export function buildAgentCard(
  card: Omit<AgentCard, 'supportedInterfaces'>,
  interfaces: AgentInterface[],
): AgentCard {
  const { name, description, ...rest } = card;
  return { name, description, supportedInterfaces: interfaces, ...rest };
}

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
  readonly #rpcPath: string;
  readonly #cards = new Map<string, Promise<ServedCard>>();

  /**
   * Validates the card once with a placeholder URL, so that an invalid card fails at startup.
   *
   * @throws ConfigurationError when the handler's card is not a valid AgentCard.
   */
  constructor(handler: A2ARequestHandler, agentPath: string, rpcPath: string) {
    this.#handler = handler;
    this.#agentPath = agentPath;
    this.#rpcPath = rpcPath;
    assertValidCard(this.#build('http://127.0.0.1'), agentPath);
  }

  /** The absolute JSON-RPC URL of the agent under `baseUrl`. */
  rpcUrl(baseUrl: string): string {
    return baseUrl + this.#agentPath + this.#rpcPath;
  }

  /** The absolute card URL of the agent under `baseUrl`. */
  cardUrl(baseUrl: string): string {
    return baseUrl + this.#agentPath + '/.well-known/agent-card.json';
  }

  /** The interfaces the card declares under `baseUrl`. */
  interfaces(baseUrl: string): AgentInterface[] {
    return [jsonRpcInterface(this.rpcUrl(baseUrl))];
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
    return buildAgentCard(this.#handler.card, this.interfaces(baseUrl));
  }

  async #serve(baseUrl: string): Promise<ServedCard> {
    const card = this.#build(baseUrl);
    assertValidCard(card, this.#agentPath);
    const json = JSON.stringify(card);
    return { card, json, etag: await sha256Tag(json) };
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
