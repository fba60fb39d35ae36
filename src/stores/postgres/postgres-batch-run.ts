/**
 * Runs one batch of the write queue (`postgres-write-queue.ts`) to a known outcome for each of its
 * tasks: the batch statement (`postgres-batch-statement.ts`), one round trip and one commit.
 *
 * - A batch whose statement fails is rolled back whole. A deadlock or serialization failure is
 *   retried. Another error from the server (a value PostgreSQL refuses) splits the batch into one
 *   statement per task, so that only the task at fault fails.
 * - When the connection is lost with the outcome unknown, each task's last event is read back: a
 *   write that committed is reported applied, one that did not failed — never both, never half.
 * - A write refused by its seq check is reported with the seq the task is at.
 */

import { asError, TaskExistsError } from '../../protocol/local-errors.js';
import { batchStatement, batchStatementValues, type BatchRow } from './postgres-batch-statement.js';
import { toNumber, type PostgresDatabase } from './postgres-database.js';
import { applyStoredFields, needsStoredFields, type TaskWrite } from './postgres-task-write.js';

/** The outcome of one task's part of a batch. */
export type EntryOutcome =
  | { readonly kind: 'applied' }
  | { readonly kind: 'refused'; readonly currentSeq: number | undefined }
  | { readonly kind: 'failed'; readonly error: Error };

/** What a batch needs besides its writes. */
export interface BatchContext {
  readonly db: PostgresDatabase;
  /** The batch statement's text for the store's schema. */
  readonly text: string;
  /** Named (prepared) statements. */
  readonly prepared: boolean;
  /** Identifies the store in its announcements. */
  readonly storeId: string;
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

/** Runs the writes of batch number `batch` to a known outcome each, by position. */
export async function runBatch(
  context: BatchContext,
  folds: TaskWrite[],
  batch: number,
): Promise<EntryOutcome[]> {
  try {
    await readStoredFields(context.db, folds);
  } catch (error) {
    const failure = asError(error);
    return folds.map(() => ({ kind: 'failed', error: failure }));
  }
  for (let attempt = 0; ; attempt++) {
    try {
      const applied = await send(context, folds, batch);
      return await outcomesOf(context, folds, applied);
    } catch (error) {
      const state = sqlStateOf(error);
      if (state !== undefined && RETRYABLE.has(state) && attempt < MAX_RETRIES) continue;
      if (isStatementError(error)) {
        if (folds.length === 1) return [{ kind: 'failed', error: asError(error) }];
        // One task's write is at fault: each alone, so that only that one fails.
        const alone: EntryOutcome[] = [];
        for (const fold of folds) alone.push(...(await runBatch(context, [fold], batch)));
        return alone;
      }
      return recover(context.db, folds, asError(error));
    }
  }
}

/** Sends the statement; resolves to the seq each applied write reached, by position. */
async function send(
  context: BatchContext,
  folds: TaskWrite[],
  batch: number,
): Promise<Map<number, number>> {
  const { db } = context;
  const order = folds
    .map((fold, i) => ({ fold, i }))
    .sort((x, y) => (x.fold.taskId < y.fold.taskId ? -1 : x.fold.taskId > y.fold.taskId ? 1 : 0));
  const sorted = order.map(({ fold }) => fold);
  const prefix = `{"s":${JSON.stringify(context.storeId)},"b":${batch},"c":`;
  const values = batchStatementValues(sorted, db.names.channel, prefix);
  const result = await db.pool.query<BatchRow>(
    batchStatement(db.names, context.text, values, context.prepared),
  );
  const applied = new Map<number, number>();
  for (const row of result.rows) {
    const entry = order[row.ord];
    if (entry !== undefined) applied.set(entry.i, toNumber(row.seq));
  }
  return applied;
}

/** The outcome of each write from the rows it applied; refused ones get the current seq. */
async function outcomesOf(
  context: BatchContext,
  folds: TaskWrite[],
  applied: Map<number, number>,
): Promise<EntryOutcome[]> {
  const refused = folds.filter((_, i) => !applied.has(i)).map((fold) => fold.taskId);
  const current = refused.length === 0 ? new Map<string, number>() : await seqsOf(context, refused);
  return folds.map((fold, i) => {
    if (applied.has(i)) return { kind: 'applied' };
    if (fold.creation !== undefined) {
      return { kind: 'failed', error: new TaskExistsError(fold.taskId) };
    }
    return { kind: 'refused', currentSeq: current.get(fold.taskId) };
  });
}

async function seqsOf(
  context: BatchContext,
  taskIds: readonly string[],
): Promise<Map<string, number>> {
  const { db } = context;
  const result = await db.pool.query<{ id: string; seq: string }>({
    ...(context.prepared ? { name: 'tandem_current_seqs' } : {}),
    text: `SELECT id, seq FROM ${db.names.tasks} WHERE id = ANY($1::text[])`,
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
async function recover(
  db: PostgresDatabase,
  folds: TaskWrite[],
  error: Error,
): Promise<EntryOutcome[]> {
  let stored: Map<string, string>;
  try {
    const result = await db.pool.query<{ id: string; event: string }>({
      text: `SELECT t.id, e.event FROM unnest($1::text[], $2::bigint[]) AS x (id, seq)
             JOIN ${db.names.tasks} t ON t.id = x.id
             JOIN ${db.names.events} e ON e.task_key = t.key AND e.seq = x.seq`,
      values: [folds.map((fold) => fold.taskId), folds.map((fold) => fold.seq)],
    });
    stored = new Map(result.rows.map((row) => [row.id, row.event]));
  } catch (readError) {
    db.onError(asError(readError));
    return folds.map(() => ({ kind: 'failed', error }));
  }
  return folds.map((fold) =>
    fold.lastEvent !== undefined && stored.get(fold.taskId) === fold.lastEvent
      ? { kind: 'applied' }
      : { kind: 'failed', error },
  );
}

/** Reads the stored fields the chunks of `folds` merge into (see `postgres-task-write.ts`). */
async function readStoredFields(db: PostgresDatabase, folds: TaskWrite[]): Promise<void> {
  for (const fold of folds) {
    if (!needsStoredFields(fold)) continue;
    const ids = [...fold.artifacts.values()]
      .filter((a) => a.merges.length > 0)
      .map((a) => a.artifactId);
    const result = await db.pool.query<{ artifact_id: string; fields: string }>({
      text: `SELECT a.artifact_id, a.fields FROM ${db.names.artifacts} a
             JOIN ${db.names.tasks} t ON t.key = a.task_key
             WHERE t.id = $1 AND a.artifact_id = ANY($2::text[])`,
      values: [fold.taskId, ids],
    });
    applyStoredFields(fold, new Map(result.rows.map((row) => [row.artifact_id, row.fields])));
  }
}
