/**
 * An ordered index of task keys by (status time, id), for in-memory keyset pagination. Kept
 * ascending so that the common update — a task's status becomes the newest — is an append at the
 * end; listing walks it backwards, newest first.
 */

import type { TaskListCursor } from '../task-store.js';

/** One key of the index. */
export interface OrderKey {
  readonly statusTime: number;
  readonly id: string;
}

function compare(a: OrderKey, b: OrderKey): number {
  if (a.statusTime !== b.statusTime) return a.statusTime < b.statusTime ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Ascending array of keys with binary-search insert and remove. */
export class TaskOrderIndex<K extends OrderKey> {
  readonly #keys: K[] = [];

  get size(): number {
    return this.#keys.length;
  }

  /** Index of the first key not less than `key`. */
  #lowerBound(key: OrderKey): number {
    let lo = 0;
    let hi = this.#keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(this.#keys[mid] as K, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  insert(key: K): void {
    const keys = this.#keys;
    const last = keys[keys.length - 1];
    if (last === undefined || compare(last, key) < 0) {
      keys.push(key);
      return;
    }
    keys.splice(this.#lowerBound(key), 0, key);
  }

  /** Puts `replacement` (with the same status time and id) in place of `key`. */
  replace(key: OrderKey, replacement: K): void {
    const at = this.#lowerBound(key);
    const found = this.#keys[at];
    if (found !== undefined && compare(found, key) === 0) this.#keys[at] = replacement;
  }

  /** Removes the entry equal to `key` (same status time and id). */
  remove(key: OrderKey): void {
    const at = this.#lowerBound(key);
    const found = this.#keys[at];
    if (found !== undefined && compare(found, key) === 0) this.#keys.splice(at, 1);
  }

  /**
   * Yields keys in descending order, starting strictly after `cursor` (i.e. with a smaller
   * status time, or the same time and a smaller id) when given.
   */
  *descending(cursor?: TaskListCursor): Generator<K> {
    let i = cursor === undefined ? this.#keys.length - 1 : this.#lowerBound(cursor) - 1;
    for (; i >= 0; i--) yield this.#keys[i] as K;
  }
}
