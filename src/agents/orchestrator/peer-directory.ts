/**
 * The peer agents an orchestrator delegates to, known by their cards. Cards are read through a
 * card resolver, whose cache honours the peers' `Cache-Control` and `ETag` (spec 8.6): routing a
 * request costs no fetch while a card is fresh, and a revalidation otherwise. When a peer answers
 * that what its cached card promised is gone (an interface, an operation, a media type),
 * {@link PeerDirectory.refresh} forgets that card and reads it again at once, rather than trusting
 * the stale copy until its lifetime ends.
 *
 * A peer's URL may be internal: what the orchestrator shows its callers names a peer by its
 * card's name, and refers to it by {@link Peer.key}, a digest of the URL, never the URL itself.
 */

import { createHash } from 'node:crypto';
import {
  createCardResolver,
  createClient,
  type A2AClient,
  type AgentCard,
  type CardResolver,
} from '../../client.js';
import { cardFailureOf } from './peer-failure.js';

/** A peer whose card was read. */
export interface Peer {
  /** Where the peer is: its base URL or card URL, as configured. */
  readonly url: string;
  /** A digest of the URL: how tasks refer to the peer without showing where it is. */
  readonly key: string;
  readonly card: AgentCard;
}

/** A peer whose card could not be read, and why. */
export interface UnreachablePeer {
  readonly url: string;
  readonly key: string;
  /** Why, in words fit for the caller: the peer named by its place in the list ("peer 2"). */
  readonly reason: string;
  /** What the card resolver threw, to word the reason with the peer's name when it is known. */
  readonly error: unknown;
}

/** Options of {@link PeerDirectory}. */
export interface PeerDirectoryOptions {
  /** Default: a resolver of its own, keeping cards served without caching headers for 60 s. */
  readonly cardResolver?: CardResolver;
  /** Time limit of a card fetch and of each call to a peer, in ms. Default 30 s. */
  readonly timeoutMs?: number;
}

/** The digest by which tasks refer to a peer. */
export function peerKeyOf(url: string): string {
  return createHash('sha256').update(url).digest('hex').slice(0, 16);
}

/** The configured peers and their cards. */
export class PeerDirectory {
  readonly urls: readonly string[];
  readonly #resolver: CardResolver;
  readonly #timeoutMs: number;

  constructor(urls: readonly string[], options: PeerDirectoryOptions = {}) {
    this.urls = urls;
    this.#resolver = options.cardResolver ?? createCardResolver({ defaultMaxAgeMs: 60_000 });
    this.#timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** The URL of the peer `key` refers to, if it is still configured. */
  urlOf(key: string): string | undefined {
    return this.urls.find((url) => peerKeyOf(url) === key);
  }

  /** Every peer's card (from the cache while fresh), and the peers that could not be read. */
  async read(signal: AbortSignal): Promise<{ peers: Peer[]; unreachable: UnreachablePeer[] }> {
    const results = await Promise.all(this.urls.map((url) => this.#read(url, signal)));
    const peers: Peer[] = [];
    const unreachable: UnreachablePeer[] = [];
    for (const result of results) {
      if ('card' in result) peers.push(result);
      else unreachable.push(result);
    }
    return { peers, unreachable };
  }

  /** One peer's card; a fresh read after {@link refresh}. */
  async peer(url: string, signal: AbortSignal): Promise<Peer | UnreachablePeer> {
    return this.#read(url, signal);
  }

  /** Forgets the cached card of a peer: the next read fetches it again. */
  refresh(url: string): void {
    this.#resolver.clear(url);
  }

  /**
   * A client of the peer, on its current card. It carries no credentials of the orchestrator's
   * callers: only what the orchestrator itself is configured with (nothing, here).
   */
  async clientOf(peer: Peer): Promise<A2AClient> {
    return createClient(peer.url, { cardResolver: this.#resolver, timeoutMs: this.#timeoutMs });
  }

  async #read(url: string, signal: AbortSignal): Promise<Peer | UnreachablePeer> {
    const key = peerKeyOf(url);
    try {
      const { card } = await this.#resolver.resolve(url, { signal, timeoutMs: this.#timeoutMs });
      return { url, key, card };
    } catch (error) {
      if (signal.aborted) throw error;
      const place = this.urls.indexOf(url) + 1;
      return { url, key, error, reason: cardFailureOf(error, `peer ${place}`) };
    }
  }
}
