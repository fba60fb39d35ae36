/**
 * The inspector's record of what went over the wire, kept for the run (the most recent
 * {@link WIRE_LOG_LIMIT} entries) and told to the pages that follow it live. Entries are stored
 * masked: a credential never reaches this log.
 */

import type { WireEntry } from './inspector-api.js';

/** Entries kept; older ones are dropped. */
export const WIRE_LOG_LIMIT = 500;

/** A live record: the exchange of one entry updates it as the response arrives. */
export class WireLog {
  readonly #entries = new Map<number, WireEntry>();
  readonly #listeners = new Set<(entry: WireEntry) => void>();
  #next = 1;

  /** A fresh entry id. */
  nextId(): number {
    return this.#next++;
  }

  /** Stores (or replaces, by id) an entry and tells the listeners. */
  put(entry: WireEntry): void {
    this.#entries.set(entry.id, entry);
    if (this.#entries.size > WIRE_LOG_LIMIT) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    for (const listener of this.#listeners) listener(entry);
  }

  /** Every entry kept, oldest first. */
  entries(): WireEntry[] {
    return [...this.#entries.values()];
  }

  /** Calls `listener` with every entry stored or updated from now on; returns the unsubscribe. */
  subscribe(listener: (entry: WireEntry) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
