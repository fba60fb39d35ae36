/**
 * The integer keys of the SQLite schema (version 4, see `sqlite-migrations.ts`). A task has a
 * `key`, given in order of creation; each of its child rows is keyed `key << 24` joined with its
 * position (`|`), so that a task's rows are one range of a rowid table and a new task's rows go
 * at the end. SQLite computes both on 64-bit integers: better-sqlite3 binds JavaScript numbers
 * as floats, exact only up to 2^53, and `+` on a float would round a large key.
 */

import { StorageError } from '../../protocol/local-errors.js';

/** Bits of a child key that hold the position; what SQL shifts a task key by. */
export const POSITION_BITS = 24;

/** The largest position a child key holds: events, messages, artifacts and parts per task. */
export const MAX_POSITION = 2 ** POSITION_BITS - 1;

/**
 * The largest task key: child keys are signed 64-bit integers, and so is the end of the last
 * task's range, `(key + 1) << 24`, which must stay below 2^63.
 */
export const MAX_TASK_KEY = 2 ** (63 - POSITION_BITS) - 2;

/** SQL: the first child key of the task whose key is `taskKey` (an SQL expression, or `?`). */
export function firstChildKeySql(taskKey: string): string {
  return `(${taskKey} << ${POSITION_BITS})`;
}

/** SQL: the first child key after those of the task whose key is `taskKey`. */
export function endChildKeySql(taskKey: string): string {
  return firstChildKeySql(`(${taskKey} + 1)`);
}

/** SQL: `column` is a child key of the task whose key is `taskKey` (which appears twice). */
export function childRangeSql(column: string, taskKey: string): string {
  return `${column} >= ${firstChildKeySql(taskKey)} AND ${column} < ${endChildKeySql(taskKey)}`;
}

/** SQL: the position that the child key `column` holds. */
export function positionSql(column: string): string {
  return `(${column} & ${MAX_POSITION})`;
}

/** What a key counts, in the words of the error that refuses one more. */
export type KeyedKind = 'events' | 'messages' | 'artifacts' | 'artifact parts';

/**
 * Throws a `StorageError` when `position` is past what a child key holds: seqs count from 1, so a
 * task holds 2^24 - 1 events; the others count from 0, 2^24 each (parts by serial, so the parts
 * of an artifact replaced whole still count). The write then fails alone: the group commit rolls
 * back what it had stored, and the task stays as it was.
 */
export function checkPosition(taskId: string, kind: KeyedKind, position: number): void {
  if (position > MAX_POSITION) {
    const capacity = kind === 'events' ? MAX_POSITION : MAX_POSITION + 1;
    throw new StorageError(
      `Task ${taskId} cannot hold more than ${capacity} ${kind} in a SQLite task store`,
    );
  }
}

/** Throws a `StorageError` when the file has used every task key. */
export function checkTaskKey(key: number): void {
  if (key > MAX_TASK_KEY) {
    throw new StorageError(
      `This SQLite task store has used all ${MAX_TASK_KEY} task keys; start a new database file`,
    );
  }
}
