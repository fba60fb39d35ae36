/**
 * Why a SQLite database file could not be opened, in words that name the file and what to do.
 * SQLite itself says "unable to open database file" whether the directory is missing, the
 * process may not write there, or the path is a directory; the file system is asked which it is,
 * after the open failed (asking first would race with whatever changes the directory meanwhile,
 * and costs a successful open nothing).
 */

import { accessSync, constants, statSync, type Stats } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, resolve as resolvePath } from 'node:path';
import Database from 'better-sqlite3';
import { ConfigurationError } from '../../protocol/local-errors.js';

/** Who the process runs as, for a permission error: the user name, or the uid without one. */
function processUser(): string {
  try {
    return userInfo().username;
  } catch {
    // No passwd entry for the uid (some containers): the number is all there is.
    return `uid ${process.getuid?.() ?? 'unknown'}`;
  }
}

function statOf(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function mayAccess(path: string, mode: number): boolean {
  try {
    accessSync(path, mode);
    return true;
  } catch {
    return false;
  }
}

/**
 * What is wrong with `path` as a database file, when the file system can tell; `undefined` when
 * nothing visible is (SQLite's own error then stands).
 */
export function diagnoseDatabasePath(path: string): string | undefined {
  const absolute = resolvePath(path);
  const directory = dirname(absolute);
  const file = statOf(absolute);
  if (file?.isDirectory() === true) {
    return `${path} is a directory; give the path of a database file, e.g. ${path.replace(/\/+$/, '')}/tandem.db`;
  }
  const parent = statOf(directory);
  if (parent === undefined) {
    return `the directory ${directory} does not exist; create it (mkdir -p ${directory}) or choose another path`;
  }
  if (!parent.isDirectory()) return `${directory} is not a directory; choose another path`;
  const user = processUser();
  if (file === undefined) {
    if (!mayAccess(directory, constants.W_OK | constants.X_OK)) {
      return `permission denied: user ${user} may not create files in ${directory}`;
    }
    return undefined;
  }
  if (!mayAccess(absolute, constants.R_OK | constants.W_OK)) {
    return `permission denied: user ${user} may not read and write ${absolute}`;
  }
  // SQLite creates its -wal and -shm files beside the database.
  if (!mayAccess(directory, constants.W_OK | constants.X_OK)) {
    return `permission denied: user ${user} may not create files in ${directory} (SQLite needs its -wal file beside the database)`;
  }
  return undefined;
}

/** SQLite codes that mean the file could not be opened or written as a file. */
const FILE_CODES = new Set(['SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_PERM', 'SQLITE_IOERR']);

/** The code better-sqlite3 reports, extended ones included (`SQLITE_CANTOPEN_ISDIR`). */
function sqliteCodeOf(error: unknown): string | undefined {
  return error instanceof Database.SqliteError ? error.code : undefined;
}

/**
 * The error to throw for a failed open of `path`: a `ConfigurationError` naming the file and why,
 * SQLite's error as its cause; other errors unchanged.
 */
export function explainOpenError(error: unknown, path: string, waitedMs: number): unknown {
  const code = sqliteCodeOf(error);
  if (code === undefined) {
    // better-sqlite3 throws a TypeError for a missing directory before SQLite is involved.
    if (error instanceof TypeError && /directory does not exist/i.test(error.message)) {
      const reason = diagnoseDatabasePath(path);
      if (reason !== undefined) {
        return new ConfigurationError(`cannot open the SQLite task store ${path}: ${reason}`, {
          cause: error,
        });
      }
    }
    return error;
  }
  if (code.startsWith('SQLITE_BUSY')) {
    const waited = waitedMs >= 1_000 ? ` (waited ${Math.round(waitedMs / 100) / 10} s)` : '';
    return new ConfigurationError(
      `${path} is in use by another process${waited}; a SQLite task store serves one process (use PostgreSQL to run several replicas)`,
      { cause: error },
    );
  }
  if (code === 'SQLITE_NOTADB') {
    return new ConfigurationError(
      `${path} is not a SQLite database; point the task store at a new or existing Tandem database file`,
      { cause: error },
    );
  }
  const base = code.replace(/_[A-Z]+$/, '');
  if (FILE_CODES.has(code) || FILE_CODES.has(base)) {
    const reason = diagnoseDatabasePath(path) ?? (error as Error).message;
    return new ConfigurationError(`cannot open the SQLite task store ${path}: ${reason}`, {
      cause: error,
    });
  }
  return error;
}

/** Whether a failed open was SQLite waiting in vain for another process's lock. */
export function isBusy(error: unknown): boolean {
  return sqliteCodeOf(error)?.startsWith('SQLITE_BUSY') === true;
}
