/**
 * Versioned schema migrations, shared by the SQL stores. A database records the version of the
 * last migration applied to it; opening it applies the missing ones in order, in one transaction,
 * and refuses a database written by a newer Tandem: its schema may hold data this code would
 * silently mishandle, so the operator must upgrade Tandem or point it at another database.
 *
 * Migrations are append-only: once released, a migration's SQL never changes, and a schema change
 * is a new migration with the next version.
 */

import { ConfigurationError, UsageError } from '../../protocol/local-errors.js';

/** One step of a schema's history. Versions start at 1 and increase by 1. */
export interface SchemaMigration {
  readonly version: number;
  /** What the step does, for logs and reviewers. */
  readonly description: string;
  /** The statements to run, in the dialect of the store that owns the list. */
  readonly sql: string;
}

/** The database being migrated, as error messages name it. */
export interface MigrationTarget {
  /** E.g. the file path, or `database "tandem" on db.example.com`. */
  readonly name: string;
  /** What the operator should switch to instead: `database file`, `database` or `schema`. */
  readonly kind: string;
}

/**
 * The migrations a database at `currentVersion` still needs, in order. Throws a
 * `ConfigurationError` naming the target when the database is newer than `migrations` know, and a
 * `UsageError` when the list itself is not numbered 1, 2, 3, ...
 */
export function pendingMigrations(
  target: MigrationTarget,
  currentVersion: number,
  migrations: readonly SchemaMigration[],
): readonly SchemaMigration[] {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new UsageError(
        `Schema migration "${migration.description}" has version ${migration.version}; expected ${index + 1}`,
      );
    }
  });
  const supported = migrations.length;
  if (!Number.isInteger(currentVersion) || currentVersion < 0) {
    throw new ConfigurationError(
      `${target.name} has an invalid schema version ${String(currentVersion)}; use another ${target.kind}`,
    );
  }
  if (currentVersion > supported) {
    throw new ConfigurationError(
      `${target.name} has schema version ${currentVersion} but this Tandem supports up to ${supported}; upgrade Tandem or use another ${target.kind}`,
    );
  }
  return migrations.slice(currentVersion);
}
