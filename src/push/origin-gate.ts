/**
 * At most so many webhook attempts in flight per origin; the others wait their turn, in order.
 *
 * The connection pool allows as many sockets per origin, and would queue the rest itself — but
 * each queued request would then hold a whole `ClientRequest`, its listeners and its timeout,
 * and its timeout would run while it waited: thousands of configs behind a webhook that never
 * answers (each attempt held for the whole timeout) would each cost kilobytes and churn through
 * timed-out attempts never sent. Waiting here costs one callback, and an attempt's timeout starts
 * when it may go. Origins are independent: one dead webhook's queue delays no other origin.
 */

/** Gives the turn back; safe to call twice. */
export type GateRelease = () => void;

interface Line {
  active: number;
  /** In arrival order: a Set keeps insertion order and drops an abandoned turn in O(1). */
  readonly waiting: Set<() => void>;
}

/** See the module documentation. */
export class OriginGate {
  readonly #limit: number;
  readonly #lines = new Map<string, Line>();

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Origins with attempts in flight or waiting (idle origins keep no state). */
  get origins(): number {
    return this.#lines.size;
  }

  /**
   * Resolves once an attempt to `origin` may start, with the function that ends it; rejects with
   * `signal`'s reason if that is aborted first (the turn is then given up).
   */
  async enter(origin: string, signal?: AbortSignal): Promise<GateRelease> {
    signal?.throwIfAborted();
    let line = this.#lines.get(origin);
    if (line === undefined) {
      line = { active: 0, waiting: new Set() };
      this.#lines.set(origin, line);
    }
    if (line.active < this.#limit) {
      line.active++;
      return this.#releaseOf(origin, line);
    }
    const waiting = line.waiting;
    await new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        waiting.delete(turn);
        const reason: unknown = signal?.reason;
        reject(reason instanceof Error ? reason : new DOMException('Aborted', 'AbortError'));
      };
      const turn = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      waiting.add(turn);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    // The releasing attempt handed its place over: `active` already counts this one.
    return this.#releaseOf(origin, line);
  }

  #releaseOf(origin: string, line: Line): GateRelease {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = line.waiting.values().next();
      if (!next.done) {
        line.waiting.delete(next.value);
        next.value();
        return;
      }
      line.active--;
      if (line.active === 0) this.#lines.delete(origin);
    };
  }
}
