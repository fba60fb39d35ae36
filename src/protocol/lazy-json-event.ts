/**
 * A task event whose JSON is made on first read, then kept: the one object that is both an entry
 * of a task's event log (for the stores) and an event of a stream (for the bindings), so that an
 * event is serialized at most once whoever needs its text first — a store of text persisting it,
 * or a binding splicing it into its frames. A task nobody streams and that lives in memory never
 * pays for serialization, and the memory store rebuilds the entries it hands back from the
 * payloads it keeps (the JSON of an event a stream already sent would otherwise stay in memory
 * for the life of the task).
 */

import type { StreamResponse } from './generated/types.js';

/**
 * An event and its lazily computed JSON. `seq` is its position in the task's log, `undefined`
 * only for an event outside any log (a direct `Message` answer). The payload must not be changed
 * after construction.
 */
export class LazyJsonEvent<S extends number | undefined = number> {
  readonly seq: S;
  readonly payload: StreamResponse;
  #json: string | undefined;

  constructor(seq: S, payload: StreamResponse) {
    this.seq = seq;
    this.payload = payload;
  }

  /** `JSON.stringify(payload)`, computed once. */
  get json(): string {
    this.#json ??= JSON.stringify(this.payload);
    return this.#json;
  }
}
