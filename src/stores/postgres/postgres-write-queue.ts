/**
 * Group commit for the PostgreSQL store: creations and appends are queued as they are called and
 * sent in batches, each one statement and one commit (`postgres-batch-run.ts`), so that the
 * writes of many tasks, and the consecutive writes of one, share a round trip and a commit.
 *
 * - **Batches.** A batch is sent as soon as a connection slot is free — at the end of the
 *   event-loop turn of its first write, while fewer than `maxInFlight` batches are in flight —
 *   with every write queued by then (up to `maxBatchWrites`). Under load, writes gather while
 *   the batches before them commit: the batch grows with the load instead of the queue.
 * - **Gathering.** A task whose batch just committed with nothing behind it, and which writes
 *   again at once (a streamed artifact whose producer waited for that commit), is sent once its
 *   writes stop coming for a turn (at most {@link MAX_GATHER_TURNS}), not with its first one:
 *   otherwise its next batch would hold only that write while the rest gather behind it, and a
 *   stream would take two commits for each window of writes ahead (`write-ahead.ts`) instead of
 *   one. Other tasks are not held.
 * - **One task at a time.** A task has at most one batch in flight: its next writes wait for
 *   that commit (one commit at most; other tasks' writes go on in other batches). In a batch,
 *   a task's write is its first queued write and the appends that continue it (each at the seq
 *   the one before leaves), folded into one (`postgres-task-write.ts`).
 * - **Dependents.** A write whose expected seq is the seq a write still pending will leave was
 *   built on that write: when that write is refused (the task moved on elsewhere) the dependent
 *   is refused too, and when it fails the dependent fails with the same error — never applied on
 *   top of whatever another replica wrote meanwhile.
 * - **Failures** (retried, split, or read back after a lost connection) are decided per task by
 *   `postgres-batch-run.ts`; a failed write fails the task's writes built on it.
 * - Every promise settles after its batch's outcome is known; a resolved write is committed.
 */

import { recordBatchSize } from '../../telemetry/store-metrics.js';
import { asError, TaskExistsError, UsageError } from '../../protocol/local-errors.js';
import type { AppendResult, AppendRequest, CreateTaskRequest } from '../task-store.js';
import { batchStatementText } from './postgres-batch-statement.js';
import { runBatch, type BatchContext, type EntryOutcome } from './postgres-batch-run.js';
import type { PostgresDatabase } from './postgres-database.js';
import {
  appendWrite,
  continueWith,
  creationWrite,
  endsLease,
  type TaskWrite,
} from './postgres-task-write.js';

/** A write as queued. */
interface QueuedWrite {
  readonly taskId: string;
  readonly create: CreateTaskRequest | undefined;
  readonly append: AppendRequest | undefined;
  /** The seq the task must be at; 0 for a creation. */
  readonly expectedSeq: number;
  /** The seq once written. */
  readonly seq: number;
  /** Built on the outcome of the write queued just before it for the same task. */
  readonly dependent: boolean;
  readonly resolve: (result: AppendResult | undefined) => void;
  readonly reject: (error: Error) => void;
}

/** The queued and in-flight writes of one task. */
interface Lane {
  readonly taskId: string;
  readonly queued: QueuedWrite[];
  /** The writes of the batch in flight, if any. */
  sent: QueuedWrite[] | undefined;
  /**
   * While the lane gathers (see {@link PostgresWriteQueue}): the writes it held at the last
   * flush, and the flushes it has waited.
   */
  gathering: { seen: number; turns: number } | undefined;
}

/** One task's part of a batch: its writes and their fold. */
interface BatchEntry {
  readonly lane: Lane;
  readonly writes: QueuedWrite[];
  readonly fold: TaskWrite;
}

/** The flushes a gathering task waits at most for its writes to stop coming. */
const MAX_GATHER_TURNS = 64;

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

/** The write queue of one store. */
export class PostgresWriteQueue {
  readonly #options: WriteQueueOptions;
  readonly #context: BatchContext;
  readonly #lanes = new Map<string, Lane>();
  /** Lanes with queued writes and no batch in flight, oldest first. */
  readonly #ready = new Set<Lane>();
  /**
   * Tasks whose batch committed, not terminal, with nothing queued behind it, since the last
   * scheduled flush: a write of theirs before it gathers.
   */
  readonly #continuing = new Set<string>();
  #inFlight = 0;
  #scheduled = false;
  #nextBatch = 0;
  /** Batches in flight by number, with what waits for them to settle. */
  readonly #settling = new Map<number, (() => void)[]>();
  #closed = false;
  /** Called once nothing is queued or in flight (see {@link drained}). */
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
    for (const lane of this.#lanes.values()) count += lane.queued.length + (lane.sent?.length ?? 0);
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
    if (waiting !== undefined) waiting.push(deliver);
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
        const gathering = this.#continuing.has(taskId) ? { seen: -1, turns: 0 } : undefined;
        lane = { taskId, queued: [], sent: undefined, gathering };
        this.#lanes.set(taskId, lane);
      }
      const last = lane.queued.at(-1) ?? lane.sent?.at(-1);
      const dependent = last !== undefined && append !== undefined && last.seq === expectedSeq;
      lane.queued.push({ taskId, create, append, expectedSeq, seq, dependent, resolve, reject });
      if (lane.sent === undefined) this.#ready.add(lane);
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#continuing.clear();
      if (this.#gather()) this.#schedule();
      this.#flush();
    });
  }

  /**
   * Ends the gathering of the lanes whose writes stopped coming since the last flush; true while
   * some lane still gathers.
   */
  #gather(): boolean {
    let gathering = false;
    for (const lane of this.#ready) {
      const state = lane.gathering;
      if (state === undefined) continue;
      const held = lane.queued.length;
      if (
        held === state.seen ||
        held >= this.#options.maxBatchWrites ||
        ++state.turns > MAX_GATHER_TURNS
      ) {
        lane.gathering = undefined;
      } else {
        state.seen = held;
        gathering = true;
      }
    }
    return gathering;
  }

  /** Sends batches while slots are free and writes wait. */
  #flush(): void {
    while (this.#inFlight < this.#options.maxInFlight && this.#ready.size > 0) {
      const entries = this.#takeBatch();
      if (entries.length === 0) return;
      this.#inFlight++;
      void this.#send(entries);
    }
  }

  /** The next batch: the first writes of the ready lanes, oldest lane first. */
  #takeBatch(): BatchEntry[] {
    const entries: BatchEntry[] = [];
    let writes = 0;
    for (const lane of this.#ready) {
      if (writes >= this.#options.maxBatchWrites) break;
      if (lane.gathering !== undefined) continue;
      this.#ready.delete(lane);
      const head = lane.queued[0] as QueuedWrite;
      const taken = [head];
      const fold =
        head.create !== undefined
          ? creationWrite(head.create)
          : appendWrite(head.append as AppendRequest);
      for (
        let i = 1;
        i < lane.queued.length && writes + taken.length < this.#options.maxBatchWrites;
        i++
      ) {
        const next = lane.queued[i] as QueuedWrite;
        if (!next.dependent || next.append === undefined) break;
        continueWith(fold, next.append);
        taken.push(next);
      }
      lane.queued.splice(0, taken.length);
      lane.sent = taken;
      writes += taken.length;
      entries.push({ lane, writes: taken, fold });
    }
    return entries;
  }

  async #send(entries: BatchEntry[]): Promise<void> {
    recordBatchSize(
      'postgresql',
      entries.reduce((sum, entry) => sum + entry.writes.length, 0),
    );
    const batch = this.#nextBatch++;
    this.#settling.set(batch, []);
    let outcomes: EntryOutcome[];
    try {
      outcomes = await runBatch(
        this.#context,
        entries.map((entry) => entry.fold),
        batch,
      );
    } catch (error) {
      // Nothing above throws but a bug: fail the batch's writes rather than lose them.
      const failure = asError(error);
      outcomes = entries.map(() => ({ kind: 'failed', error: failure }));
    }
    entries.forEach((entry, i) => this.#settle(entry, outcomes[i] as EntryOutcome));
    this.#inFlight--;
    const waiting = this.#settling.get(batch) ?? [];
    this.#settling.delete(batch);
    if (waiting.length > 0) setImmediate(() => waiting.forEach((deliver) => deliver()));
    this.#flush();
  }

  /** Settles the writes of one task's part of a batch, then those that depended on them. */
  #settle(entry: BatchEntry, outcome: EntryOutcome): void {
    const { lane, writes, fold } = entry;
    lane.sent = undefined;
    if (outcome.kind === 'applied') {
      for (const write of writes)
        write.resolve(write.append === undefined ? undefined : { ok: true, seq: write.seq });
      if (endsLease(fold)) this.#options.onTerminal(fold.taskId);
      else if (lane.queued.length === 0) this.#continuing.add(lane.taskId);
    } else {
      const [head, ...rest] = writes;
      this.#fail(head as QueuedWrite, outcome);
      for (const write of rest) this.#fail(write, outcome, true);
      // Queued writes built on the ones that did not go through go the same way.
      while (lane.queued[0]?.dependent === true)
        this.#fail(lane.queued.shift() as QueuedWrite, outcome, true);
    }
    if (lane.queued.length > 0) this.#ready.add(lane);
    else this.#lanes.delete(lane.taskId);
    if (this.#lanes.size === 0 && this.#whenDrained.length > 0) {
      for (const resolve of this.#whenDrained.splice(0)) resolve();
    }
  }

  #fail(
    write: QueuedWrite,
    outcome: Exclude<EntryOutcome, { kind: 'applied' }>,
    dependent = false,
  ): void {
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
