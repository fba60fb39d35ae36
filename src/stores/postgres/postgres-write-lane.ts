/**
 * The bookkeeping of the write queue (`postgres-write-queue.ts`) for one task: its writes as
 * queued, the slices of them in flight in the order they were sent, and which of its artifacts
 * are known to be committed — what decides whether its next writes may be sent before the ones
 * in flight commit.
 */

import type { AppendResult, AppendRequest, CreateTaskRequest } from '../task-store.js';
import type { EntryOutcome } from './postgres-batch-run.js';
import type { TaskWrite } from './postgres-task-write.js';

/** A write as queued. */
export interface QueuedWrite {
  readonly taskId: string;
  readonly create: CreateTaskRequest | undefined;
  readonly append: AppendRequest | undefined;
  /** The seq the task must be at; 0 for a creation. */
  readonly expectedSeq: number;
  /** The seq once written. */
  readonly seq: number;
  /** Built on the outcome of the write queued just before it for the same task. */
  readonly dependent: boolean;
  /** Sent once already, refused because its statement overtook the one it continues. */
  resent?: boolean;
  readonly resolve: (result: AppendResult | undefined) => void;
  readonly reject: (error: Error) => void;
}

/** A batch as its slices settle: what waits for the last of them. */
export interface SliceBatch {
  readonly number: number;
  /** Slices whose writes have not settled yet. */
  unsettled: number;
  /** Run once every slice has settled (see `PostgresWriteQueue.afterBatch`). */
  readonly waiting: (() => void)[];
}

/** One task's part of a batch: its writes and their fold. */
export interface Slice {
  readonly lane: Lane;
  readonly writes: QueuedWrite[];
  readonly fold: TaskWrite;
  /** Sent while the task's slice before it was in flight. */
  readonly following: boolean;
  /** The token of the batch it was sent behind, which must have written the task last. */
  readonly after: string | null;
  readonly batch: SliceBatch;
  /** Known once its batch's statement answered. */
  outcome: EntryOutcome | undefined;
  /** The slice before it did not go through: this one fails or is refused the same way. */
  doomedBy?: Exclude<EntryOutcome, { kind: 'applied' }>;
}

/** The queued and in-flight writes of one task. */
export interface Lane {
  readonly taskId: string;
  readonly queued: QueuedWrite[];
  /** Slices in flight, in the order they were sent (and settle). */
  readonly inFlight: Slice[];
  /** How many writes were queued when the queue last looked (see `PostgresWriteQueue`). */
  seenQueued: number;
}

/** Tasks whose artifacts are remembered at most; the oldest is forgotten first. */
const MAX_TASKS = 10_000;

/**
 * The artifacts of each task that committed writes of this store wrote: they exist, and stay
 * where they are (an artifact is never removed but with its task), so an append to them finds
 * them however old its statement's snapshot. Forgetting one only costs a write its early send.
 */
export class CommittedArtifacts {
  readonly #byTask = new Map<string, Set<string>>();

  /** The artifact ids known committed for a task. */
  of(taskId: string): ReadonlySet<string> | undefined {
    return this.#byTask.get(taskId);
  }

  /** `write` committed: its artifacts exist. */
  wrote(write: TaskWrite): void {
    if (write.artifacts.size === 0) return;
    let known = this.#byTask.get(write.taskId);
    if (known === undefined) {
      if (this.#byTask.size >= MAX_TASKS) {
        const oldest = this.#byTask.keys().next();
        if (oldest.done !== true) this.#byTask.delete(oldest.value);
      }
      known = new Set();
      this.#byTask.set(write.taskId, known);
    }
    for (const artifactId of write.artifacts.keys()) known.add(artifactId);
  }

  /** The task ended: nothing will be appended to it. */
  forget(taskId: string): void {
    this.#byTask.delete(taskId);
  }
}
