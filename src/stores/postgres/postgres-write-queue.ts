/**
 * Group commit for the PostgreSQL store: creations and appends are queued as they are called and
 * sent in batches, each one statement and one commit (`postgres-batch-statement.ts`), so that the
 * writes of many tasks, and the consecutive writes of one, share a round trip and a commit.
 *
 * - **Batches.** A batch is sent as soon as a connection slot is free — at the end of the
 *   event-loop turn of its first write, while fewer than `maxInFlight` batches are in flight —
 *   with every write queued by then (up to `maxBatchWrites`). Under load, writes gather while
 *   the batches before them commit: the batch grows with the load instead of the queue.
 * - **One task at a time.** A task has at most one batch in flight: its next writes wait for
 *   that commit (one commit at most; other tasks' writes go on in other batches). In a batch,
 *   a task's write is its first queued write and the appends that continue it (each at the seq
 *   the one before leaves), folded into one (`postgres-task-write.ts`).
 * - **Dependents.** A write whose expected seq is the seq a write still pending will leave was
 *   built on that write: when that write is refused (the task moved on elsewhere) the dependent
 *   is refused too, and when it fails the dependent fails with the same error — never applied on
 *   top of whatever another replica wrote meanwhile.
 * - **Failures.** A batch whose statement fails is rolled back whole. A deadlock or
 *   serialization failure is retried. Another error from the server (a value PostgreSQL
 *   refuses) splits the batch into one statement per task, so that only the task at fault fails.
 *   When the connection is lost with the outcome unknown, the store reads back each task's last
 *   event: a write that committed is acknowledged, one that did not fails — never both, never
 *   half.
 * - Every promise settles after its batch's outcome is known; a resolved write is committed.
 */

import { recordBatchSize } from '../../telemetry/store-metrics.js';
import { asError, TaskExistsError, UsageError } from '../../protocol/local-errors.js';
import type { AppendResult, AppendRequest, CreateTaskRequest } from '../task-store.js';
import {
  batchStatement,
  batchStatementText,
  batchStatementValues,
  type BatchRow,
} from './postgres-batch-statement.js';
import { toNumber, type PostgresDatabase } from './postgres-database.js';
import {
  appendWrite,
  applyStoredFields,
  continueWith,
  creationWrite,
  endsLease,
  needsStoredFields,
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
}

/** One task's part of a batch: its writes and their fold. */
interface BatchEntry {
  readonly lane: Lane;
  readonly writes: QueuedWrite[];
  readonly fold: TaskWrite;
}

/** The outcome of one task's part of a batch. */
type EntryOutcome =
  | { readonly kind: 'applied' }
  | { readonly kind: 'refused'; readonly currentSeq: number | undefined }
  | { readonly kind: 'failed'; readonly error: Error };

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

/** SQLSTATEs after which the whole statement is known to be rolled back and may run again. */
const RETRYABLE = new Set(['40P01', '40001']);
const MAX_RETRIES = 5;

function sqlStateOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code = error.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * Whether PostgreSQL answered the statement with an error: it was then rolled back. Class 08
 * (connection exception) and 57 (operator intervention, e.g. `pg_terminate_backend`) say the
 * session ended; the statement's fate is checked rather than assumed.
 */
function isStatementError(error: unknown): boolean {
  const state = sqlStateOf(error);
  return state !== undefined && !state.startsWith('08') && !state.startsWith('57');
}

/** The write queue of one store. */
export class PostgresWriteQueue {
  readonly #db: PostgresDatabase;
  readonly #options: WriteQueueOptions;
  readonly #text: string;
  readonly #lanes = new Map<string, Lane>();
  /** Lanes with queued writes and no batch in flight, oldest first. */
  readonly #ready = new Set<Lane>();
  #inFlight = 0;
  #scheduled = false;
  #nextBatch = 0;
  /** Batches in flight by number, with what waits for them to settle. */
  readonly #settling = new Map<number, (() => void)[]>();
  #closed = false;
  /** Called once nothing is queued or in flight (see {@link drained}). */
  #whenDrained: (() => void)[] = [];

  constructor(db: PostgresDatabase, options: WriteQueueOptions) {
    this.#db = db;
    this.#options = options;
    this.#text = batchStatementText(db.names);
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
        lane = { taskId, queued: [], sent: undefined };
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
      this.#flush();
    });
  }

  /** Sends batches while slots are free and writes wait. */
  #flush(): void {
    while (this.#inFlight < this.#options.maxInFlight && this.#ready.size > 0) {
      const entries = this.#takeBatch();
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
      outcomes = await this.#execute(entries, batch);
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

  /** Runs a batch to a known outcome per task. */
  async #execute(entries: BatchEntry[], batch: number): Promise<EntryOutcome[]> {
    const folds = entries.map((entry) => entry.fold);
    try {
      await this.#readStoredFields(folds);
    } catch (error) {
      const failure = asError(error);
      return entries.map(() => ({ kind: 'failed', error: failure }));
    }
    for (let attempt = 0; ; attempt++) {
      try {
        const applied = await this.#run(folds, batch);
        return await this.#outcomes(folds, applied);
      } catch (error) {
        const state = sqlStateOf(error);
        if (state !== undefined && RETRYABLE.has(state) && attempt < MAX_RETRIES) continue;
        if (isStatementError(error)) {
          if (entries.length === 1) return [{ kind: 'failed', error: asError(error) }];
          // One task's write is at fault: each alone, so that only that one fails.
          const alone: EntryOutcome[] = [];
          for (const entry of entries) alone.push(...(await this.#execute([entry], batch)));
          return alone;
        }
        return this.#recover(folds, asError(error));
      }
    }
  }

  /** Sends the statement; resolves to the seq each applied write reached, by position. */
  async #run(folds: TaskWrite[], batch: number): Promise<Map<number, number>> {
    const order = folds
      .map((fold, i) => ({ fold, i }))
      .sort((x, y) => (x.fold.taskId < y.fold.taskId ? -1 : x.fold.taskId > y.fold.taskId ? 1 : 0));
    const sorted = order.map(({ fold }) => fold);
    const prefix = `{"s":${JSON.stringify(this.#options.storeId)},"b":${batch},"c":`;
    const values = batchStatementValues(sorted, this.#db.names.channel, prefix);
    const result = await this.#db.pool.query<BatchRow>(
      batchStatement(this.#db.names, this.#text, values, this.#options.prepared),
    );
    const applied = new Map<number, number>();
    for (const row of result.rows) {
      const entry = order[row.ord];
      if (entry !== undefined) applied.set(entry.i, toNumber(row.seq));
    }
    return applied;
  }

  /** The outcome of each write from the rows it applied; refused ones get the current seq. */
  async #outcomes(folds: TaskWrite[], applied: Map<number, number>): Promise<EntryOutcome[]> {
    const refused = folds.filter((_, i) => !applied.has(i)).map((fold) => fold.taskId);
    const current = refused.length === 0 ? new Map<string, number>() : await this.#seqsOf(refused);
    return folds.map((fold, i) => {
      if (applied.has(i)) return { kind: 'applied' };
      if (fold.creation !== undefined) {
        return { kind: 'failed', error: new TaskExistsError(fold.taskId) };
      }
      return { kind: 'refused', currentSeq: current.get(fold.taskId) };
    });
  }

  async #seqsOf(taskIds: readonly string[]): Promise<Map<string, number>> {
    const result = await this.#db.pool.query<{ id: string; seq: string }>({
      ...(this.#options.prepared ? { name: 'tandem_current_seqs' } : {}),
      text: `SELECT id, seq FROM ${this.#db.names.tasks} WHERE id = ANY($1::text[])`,
      values: [taskIds],
    });
    return new Map(result.rows.map((row) => [row.id, toNumber(row.seq)]));
  }

  /**
   * The connection was lost before the statement's answer: it may or may not have committed. A
   * task's write committed exactly when its last event is stored as sent (the seq check lets
   * nothing else write that seq after the same predecessor); writes without an event cannot be
   * told apart and fail.
   */
  async #recover(folds: TaskWrite[], error: Error): Promise<EntryOutcome[]> {
    let stored: Map<string, string>;
    try {
      const result = await this.#db.pool.query<{ id: string; event: string }>({
        text: `SELECT t.id, e.event FROM unnest($1::text[], $2::bigint[]) AS x (id, seq)
               JOIN ${this.#db.names.tasks} t ON t.id = x.id
               JOIN ${this.#db.names.events} e ON e.task_key = t.key AND e.seq = x.seq`,
        values: [folds.map((fold) => fold.taskId), folds.map((fold) => fold.seq)],
      });
      stored = new Map(result.rows.map((row) => [row.id, row.event]));
    } catch (readError) {
      this.#db.onError(asError(readError));
      return folds.map(() => ({ kind: 'failed', error }));
    }
    return folds.map((fold) =>
      fold.lastEvent !== undefined && stored.get(fold.taskId) === fold.lastEvent
        ? { kind: 'applied' }
        : { kind: 'failed', error },
    );
  }

  /** Reads the stored fields the chunks of `folds` merge into (see `postgres-task-write.ts`). */
  async #readStoredFields(folds: TaskWrite[]): Promise<void> {
    for (const fold of folds) {
      if (!needsStoredFields(fold)) continue;
      const ids = [...fold.artifacts.values()]
        .filter((a) => a.merges.length > 0)
        .map((a) => a.artifactId);
      const result = await this.#db.pool.query<{ artifact_id: string; fields: string }>({
        text: `SELECT a.artifact_id, a.fields FROM ${this.#db.names.artifacts} a
               JOIN ${this.#db.names.tasks} t ON t.key = a.task_key
               WHERE t.id = $1 AND a.artifact_id = ANY($2::text[])`,
        values: [fold.taskId, ids],
      });
      applyStoredFields(fold, new Map(result.rows.map((row) => [row.artifact_id, row.fields])));
    }
  }

  /** Settles the writes of one task's part of a batch, then those that depended on them. */
  #settle(entry: BatchEntry, outcome: EntryOutcome): void {
    const { lane, writes, fold } = entry;
    lane.sent = undefined;
    if (outcome.kind === 'applied') {
      for (const write of writes)
        write.resolve(write.append === undefined ? undefined : { ok: true, seq: write.seq });
      if (endsLease(fold)) this.#options.onTerminal(fold.taskId);
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
