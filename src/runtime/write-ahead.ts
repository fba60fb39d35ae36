/**
 * The bookkeeping of the writes a `PipelinedWriter` sends ahead of their commit: how many wait for
 * their outcome, the seq and state they will leave once all are stored, and the failure of one of
 * them — which dooms the writes sent after it (each was built on the state the failed one was to
 * leave) and must reach the agent even though its own promise has already resolved.
 */

import type { TaskState } from '../protocol/generated/types.js';

/** Artifact changes whose promise resolves before their commit, at most. */
export const WRITE_AHEAD_LIMIT = 32;

/** A write sent ahead failed; `expectedSeq` is the seq it was to append after. */
export interface WriteAheadFailure {
  readonly error: Error;
  readonly expectedSeq: number;
}

/** Counts and outcomes of the writes of one run that are sent ahead. */
export class WriteAhead {
  /** Sent, outcome not handled yet. */
  count = 0;
  #seq = 0;
  #state: TaskState = 'TASK_STATE_UNSPECIFIED';
  #failure: WriteAheadFailure | undefined;
  /** A failure no caller has received yet. */
  #unreported: Error | undefined;

  /** True while a failure dooms the writes still waiting: new writes must wait for them. */
  get failing(): boolean {
    return this.#failure !== undefined;
  }

  /** The seq the next write appends after, given the stored seq. */
  baseSeq(storedSeq: number): number {
    return this.count === 0 ? storedSeq : this.#seq;
  }

  /** The state once every write sent is stored (the next write's base), given the stored state. */
  acceptedState(stored: TaskState): TaskState {
    return this.count === 0 ? stored : this.#state;
  }

  /** A write was sent; once stored, the task is at `seq` in `state`. */
  sent(seq: number, state: TaskState): void {
    this.count++;
    this.#seq = seq;
    this.#state = state;
  }

  /**
   * The outcome of a write was handled. Returns the failure that dooms it when it was sent after
   * a write that failed.
   */
  handled(expectedSeq: number): WriteAheadFailure | undefined {
    this.count--;
    const failure = this.#failure;
    if (this.count === 0) this.#failure = undefined;
    return failure !== undefined && expectedSeq > failure.expectedSeq ? failure : undefined;
  }

  /**
   * A write failed (call before {@link handled}). `reported` when its caller receives the error;
   * otherwise the next call of the agent does (see {@link takeUnreported}).
   */
  failed(error: Error, expectedSeq: number, reported: boolean): void {
    if (this.#failure === undefined && this.count > 1) this.#failure = { error, expectedSeq };
    if (!reported) this.#unreported ??= error;
  }

  /** A caller received `error` (from a doomed write): the agent need not hear it again. */
  reported(error: Error): void {
    if (this.#unreported === error) this.#unreported = undefined;
  }

  /** The failure the agent has not heard of yet, once. */
  takeUnreported(): Error | undefined {
    const error = this.#unreported;
    this.#unreported = undefined;
    return error;
  }
}
