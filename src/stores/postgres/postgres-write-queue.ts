/**
 * Group commit for the PostgreSQL store: creations and appends are queued as they are called and
 * sent in batches, each one statement and one commit (`postgres-batch-run.ts`), so that the
 * writes of many tasks, and the consecutive writes of one, share a round trip and a commit.
 *
 * - **Batches.** A batch is sent as soon as a connection slot is free — at the end of the
 *   event-loop turn of its first write, while fewer than `maxInFlight` batches are in flight —
 *   with every write queued by then (up to `maxBatchWrites`). Under load, writes gather while
 *   the batches before them commit: the batch grows with the load instead of the queue.
 * - **A task's slices.** In a batch, a task's part (its slice) is its first queued write and the
 *   appends that continue it (each at the seq the one before leaves), folded into one
 *   (`postgres-task-write.ts`). A task has at most {@link MAX_SLICES_IN_FLIGHT} slices in flight.
 *   The second is sent while the first commits — in a batch of its own, once the task's writes
 *   stop coming for a turn — only when it can be: appends that write no artifact the task's
 *   committed writes did not (see `continuesCommittedArtifacts`). Its statement waits on the
 *   task's row for the first one's commit, and its conditional update then applies on top of
 *   it; a creation in flight, or anything else, waits for that commit instead.
 * - **Order.** A task's slices settle in the order they were sent, whatever order their
 *   statements answer in. A slice sent behind one that failed fails with the same error; one
 *   refused because its statement overtook the slice before it is sent again once that one
 *   committed.
 * - **Dependents.** A write whose expected seq is the seq a write still pending will leave was
 *   built on that write: when that write is refused (the task moved on elsewhere) the dependent
 *   is refused too, and when it fails the dependent fails with the same error — never applied on
 *   top of whatever another replica wrote meanwhile.
 * - Every promise settles after its batch's outcome is known; a resolved write is committed.
 */

import { asError, TaskExistsError, UsageError } from '../../protocol/local-errors.js';
import type { AppendResult, AppendRequest, CreateTaskRequest } from '../task-store.js';
import { batchStatementText } from './postgres-batch-statement.js';
import {
  batchToken,
  runBatch,
  type BatchContext,
  type EntryOutcome,
} from './postgres-batch-run.js';
import type { PostgresDatabase } from './postgres-database.js';
import {
  appendWrite,
  continuesCommittedArtifacts,
  continueWith,
  creationWrite,
  endsLease,
} from './postgres-task-write.js';
import {
  CommittedArtifacts,
  type Lane,
  type QueuedWrite,
  type Slice,
  type SliceBatch,
} from './postgres-write-lane.js';

/** Slices of one task in flight at once: one committing, the next waiting on its row. */
export const MAX_SLICES_IN_FLIGHT = 2;

/** How the queue batches. */
export interface WriteQueueOptions {
  /** Batches in flight at once, each on a pooled connection. */
  readonly maxInFlight: number;
  /** Writes in one batch at most. */
  readonly maxBatchWrites: number;
  /** Named (prepared) statements; off behind a pooler that cannot keep them. */
  readonly prepared: boolean;
  /** Identifies this store's announcements, so that it hears its own only once they settled. */
  readonly storeId: string;
  /** A task's writes committed with a terminal status (its lease ended with them). */
  readonly onTerminal: (taskId: string) => void;
}

type Failure = Exclude<EntryOutcome, { kind: 'applied' }>;

/** The write queue of one store. */
export class PostgresWriteQueue {
  readonly #options: WriteQueueOptions;
  readonly #context: BatchContext;
  readonly #lanes = new Map<string, Lane>();
  /** Lanes with queued writes and nothing in flight, oldest first. */
  readonly #ready = new Set<Lane>();
  /** Lanes with queued writes behind a slice in flight: candidates for a second slice. */
  readonly #following = new Set<Lane>();
  readonly #committed = new CommittedArtifacts();
  #inFlight = 0;
  #scheduled = false;
  #nextBatch = 0;
  /** Batches whose slices have not all settled, by number. */
  readonly #settling = new Map<number, SliceBatch>();
  #closed = false;
  /** Called once nothing is queued or in flight (see {@link close}). */
  #whenDrained: (() => void)[] = [];

  constructor(db: PostgresDatabase, options: WriteQueueOptions) {
    this.#options = options;
    this.#context = {
      db,
      text: batchStatementText(db.names),
      prepared: options.prepared,
      storeId: options.storeId,
    };
  }

  /** Writes queued or in flight. */
  get pending(): number {
    let count = 0;
    for (const lane of this.#lanes.values()) {
      count += lane.queued.length;
      for (const slice of lane.inFlight) count += slice.writes.length;
    }
    return count;
  }

  /** Queues a creation (already validated); resolves once committed. */
  create(request: CreateTaskRequest): Promise<void> {
    return this.#enqueue(request.task.id, request, undefined, 0, request.events.length).then(
      () => undefined,
    );
  }

  /** Queues an append (already validated); resolves with its outcome once known. */
  append(request: AppendRequest, seq: number): Promise<AppendResult> {
    return this.#enqueue(
      request.taskId,
      undefined,
      request,
      request.expectedSeq,
      seq,
    ) as Promise<AppendResult>;
  }

  /**
   * Runs `deliver` once batch `batch` of this store has settled (its promises resolved and
   * their callbacks run), so that the store's own announcements reach the process after the
   * writers have published what they wrote.
   */
  afterBatch(batch: number, deliver: () => void): void {
    const waiting = this.#settling.get(batch);
    if (waiting !== undefined) waiting.waiting.push(deliver);
    else setImmediate(deliver);
  }

  /** Refuses new writes from now on; resolves once those queued have settled. */
  close(): Promise<void> {
    this.#closed = true;
    if (this.#lanes.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#whenDrained.push(resolve));
  }

  #enqueue(
    taskId: string,
    create: CreateTaskRequest | undefined,
    append: AppendRequest | undefined,
    expectedSeq: number,
    seq: number,
  ): Promise<AppendResult | undefined> {
    if (this.#closed) {
      return Promise.reject(new UsageError('The PostgreSQL task store is closed'));
    }
    return new Promise((resolve, reject) => {
      let lane = this.#lanes.get(taskId);
      if (lane === undefined) {
        lane = { taskId, queued: [], inFlight: [], seenQueued: 0 };
        this.#lanes.set(taskId, lane);
      }
      const last = lane.queued.at(-1) ?? lane.inFlight.at(-1)?.writes.at(-1);
      const dependent = last !== undefined && append !== undefined && last.seq === expectedSeq;
      lane.queued.push({ taskId, create, append, expectedSeq, seq, dependent, resolve, reject });
      this.#track(lane);
      this.#schedule();
    });
  }

  /** Files a lane with queued writes where the flush looks for it. */
  #track(lane: Lane): void {
    const queued = lane.queued.length > 0;
    if (lane.inFlight.length === 0) {
      this.#following.delete(lane);
      if (queued) this.#ready.add(lane);
    } else if (queued && lane.inFlight.length < MAX_SLICES_IN_FLIGHT) {
      this.#following.add(lane);
    } else {
      this.#following.delete(lane);
    }
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#flush();
    });
  }

  /** Sends batches while slots are free and writes wait. */
  #flush(): void {
    const max = this.#options.maxInFlight;
    while (this.#inFlight < max && this.#ready.size > 0) {
      this.#send(this.#takeBatch(this.#ready, false));
    }
    if (this.#following.size === 0) return;
    const quiet = new Set<Lane>();
    let growing = false;
    for (const lane of this.#following) {
      if (!this.#canFollow(lane)) continue;
      // Sent once the task's writes stop coming for a turn: the slice then holds all of them.
      if (lane.queued.length === lane.seenQueued) quiet.add(lane);
      else growing = true;
      lane.seenQueued = lane.queued.length;
    }
    let sent = false;
    if (quiet.size > 0 && this.#inFlight < max) {
      for (const lane of quiet) this.#following.delete(lane);
      this.#send(this.#takeBatch(quiet, true));
      sent = true;
    }
    // Without a free slot, the next batch to answer flushes again.
    if (growing || sent) this.#schedule();
  }

  /** Whether a lane's next writes may go while its slice in flight commits. */
  #canFollow(lane: Lane): boolean {
    const head = lane.queued[0];
    const sent = lane.inFlight[0];
    return (
      lane.inFlight.length === 1 &&
      sent !== undefined &&
      // One slice follows another at most: a refused one is sent again with nothing behind it.
      !sent.following &&
      sent.fold.creation === undefined &&
      sent.doomedBy === undefined &&
      head !== undefined &&
      head.dependent &&
      head.resent !== true &&
      head.append !== undefined &&
      continuesCommittedArtifacts(head.append, this.#committed.of(lane.taskId))
    );
  }

  /**
   * Takes the next slice of each of `lanes`, oldest lane first, up to the batch size. Behind a
   * slice in flight (`following`), only the writes that may follow it are taken.
   */
  #takeBatch(lanes: Set<Lane>, following: boolean): Slice[] {
    const batch: SliceBatch = { number: this.#nextBatch++, unsettled: 0, waiting: [] };
    const slices: Slice[] = [];
    let writes = 0;
    const limit = this.#options.maxBatchWrites;
    for (const lane of lanes) {
      if (writes >= limit) break;
      lanes.delete(lane);
      const committed = following ? this.#committed.of(lane.taskId) : undefined;
      const head = lane.queued[0] as QueuedWrite;
      const taken = [head];
      const fold =
        head.create !== undefined
          ? creationWrite(head.create)
          : appendWrite(head.append as AppendRequest);
      for (let i = 1; i < lane.queued.length && writes + taken.length < limit; i++) {
        const next = lane.queued[i] as QueuedWrite;
        if (!next.dependent || next.append === undefined) break;
        if (following && !continuesCommittedArtifacts(next.append, committed)) break;
        continueWith(fold, next.append);
        taken.push(next);
      }
      lane.queued.splice(0, taken.length);
      lane.seenQueued = 0;
      writes += taken.length;
      const before = following ? lane.inFlight[0] : undefined;
      const after = before === undefined ? null : batchToken(this.#context, before.batch.number);
      const slice: Slice = {
        lane,
        writes: taken,
        fold,
        following,
        after,
        batch,
        outcome: undefined,
      };
      lane.inFlight.push(slice);
      slices.push(slice);
      // What the batch's size limit left may follow in a later batch.
      this.#track(lane);
    }
    batch.unsettled = slices.length;
    return slices;
  }

  #send(slices: Slice[]): void {
    const batch = (slices[0] as Slice).batch;
    this.#inFlight++;
    this.#settling.set(batch.number, batch);
    const folds = slices.map((slice) => slice.fold);
    const after = slices.map((slice) => slice.after);
    void runBatch(this.#context, folds, after, batch.number)
      .catch((error: unknown): EntryOutcome[] => {
        // Nothing above throws but a bug: fail the batch's writes rather than lose them.
        const failure = asError(error);
        return folds.map(() => ({ kind: 'failed', error: failure }));
      })
      .then((outcomes) => {
        this.#inFlight--;
        slices.forEach((slice, i) => (slice.outcome = outcomes[i]));
        for (const slice of slices) this.#settleLane(slice.lane);
        this.#flush();
      });
  }

  /** Settles a lane's slices whose outcome is known, in the order they were sent. */
  #settleLane(lane: Lane): void {
    for (;;) {
      const slice = lane.inFlight[0];
      if (slice?.outcome === undefined) break;
      lane.inFlight.shift();
      this.#settleSlice(slice, slice.outcome);
      if (--slice.batch.unsettled === 0) this.#settled(slice.batch);
    }
    if (lane.inFlight.length === 0 && lane.queued.length === 0) {
      this.#lanes.delete(lane.taskId);
      this.#following.delete(lane);
      this.#ready.delete(lane);
    } else {
      this.#track(lane);
    }
    if (this.#lanes.size === 0 && this.#whenDrained.length > 0) {
      for (const resolve of this.#whenDrained.splice(0)) resolve();
    }
  }

  /** Every slice of `batch` settled: what waited for it runs, after their callbacks. */
  #settled(batch: SliceBatch): void {
    if (!this.#settling.delete(batch.number)) return;
    const waiting = batch.waiting;
    if (waiting.length > 0) setImmediate(() => waiting.forEach((deliver) => deliver()));
  }

  /** Settles the writes of one slice, then those that depended on them. */
  #settleSlice(slice: Slice, own: EntryOutcome): void {
    const { lane, writes, fold } = slice;
    // Sent behind a slice that did not go through: it goes the same way, whatever it did.
    const outcome = slice.doomedBy ?? own;
    if (outcome.kind === 'applied') {
      for (const write of writes)
        write.resolve(write.append === undefined ? undefined : { ok: true, seq: write.seq });
      this.#committed.wrote(fold);
      if (endsLease(fold)) {
        this.#committed.forget(fold.taskId);
        this.#options.onTerminal(fold.taskId);
      }
      return;
    }
    if (
      slice.following &&
      slice.doomedBy === undefined &&
      outcome.kind === 'refused' &&
      writes[0]?.resent !== true
    ) {
      // Its statement overtook the slice before it, which has committed since: send it again.
      for (const write of writes) write.resent = true;
      lane.queued.unshift(...writes);
      return;
    }
    const [head, ...rest] = writes;
    if (slice.doomedBy === undefined) this.#fail(head as QueuedWrite, outcome);
    else this.#fail(head as QueuedWrite, outcome, true);
    for (const write of rest) this.#fail(write, outcome, true);
    const next = lane.inFlight[0];
    if (next !== undefined) {
      next.doomedBy = outcome;
      return;
    }
    // Queued writes built on the ones that did not go through go the same way.
    while (lane.queued[0]?.dependent === true)
      this.#fail(lane.queued.shift() as QueuedWrite, outcome, true);
  }

  #fail(write: QueuedWrite, outcome: Failure, dependent = false): void {
    if (
      outcome.kind === 'failed' &&
      !(dependent && outcome.error instanceof TaskExistsError && write.append !== undefined)
    ) {
      write.reject(outcome.error);
      return;
    }
    const currentSeq = outcome.kind === 'refused' ? outcome.currentSeq : undefined;
    write.resolve({ ok: false, currentSeq });
  }
}
