/**
 * The SQLite schema of the task store, as versioned migrations recorded in `PRAGMA user_version`.
 *
 * Schema version 1, and why:
 * - `tasks`: one row per task with its scope (agent, tenant, owner), the projection's scalar parts
 *   (state, status JSON, status time in epoch ms, metadata JSON), `seq` — the sequence number of
 *   its last event, which is also the row's version: a write is applied only if `seq` is still
 *   what the writer read — the lease, and two counters (`history_count`, `artifact_count`) that
 *   give the next history and artifact position without scanning.
 * - `task_history`, `task_artifacts`, `task_artifact_parts`: the projection's lists, one row per
 *   element with a dense position, so that a message or an artifact chunk is one INSERT — O(chunk),
 *   never a rewrite of the task — and `historyLength = n` is a range read (`position >= count-n`).
 *   An artifact row holds the artifact without its parts; `part_count` numbers the next part.
 * - `task_events`: the append-only log, `event` being the runtime's JSON string, unchanged.
 * - Child tables are `WITHOUT ROWID` and keyed by (task_id, position): a task's rows are stored
 *   together, so reading them is one contiguous range. There are no foreign keys: the store is
 *   the only writer and deletes children with their task in one transaction (purge), which keeps
 *   the per-chunk insert free of a parent lookup.
 * - Indexes: listing order per scope (agent, tenant, owner, status_time DESC, id DESC; ascending
 *   since version 3), the same narrowed by context or by state (ListTasks filters), partial
 *   indexes for orphan detection (active states by lease expiry), purge (terminal states by
 *   status time) and lease renewal.
 *
 * Invariant used by the orphan query: a task without a lease has `lease_expires_at = 0`.
 *
 * Schema version 2 drops `task_artifacts_by_id`: no query used it (the writer keeps the artifacts
 * of a running task in memory and loads them by task), and every artifact paid an insertion.
 *
 * Schema version 3 recreates the three listing indexes in ascending order (status_time, id).
 * Newest first is a backward scan of an ascending index, as cheap as a forward one; but a
 * descending index put every new task at the front of its range, where each page split leaves
 * half-empty pages behind, while an ascending one appends it, which SQLite packs full.
 *
 * Schema version 4 gives each task an integer `key` (`INTEGER PRIMARY KEY`, assigned in order of
 * creation; the text id keeps its unique index) and makes the child tables rowid tables whose
 * rowid `k` is `key << 24` plus the row's position — the seq of an event, the position of a
 * message or an artifact, and for parts a serial number counted over all of a task's parts (their
 * order within an artifact), with the artifact's position as a column. A task's rows stay one
 * contiguous range, now of integers, and a new task's rows are appended at the end of each table,
 * where SQLite's quick balance adds a page instead of rebalancing three (index B-trees, which a
 * `WITHOUT ROWID` table is, never get it): ~25% less time in SQLite per short task and an 18%
 * smaller file. The price is a bound: about 2^24 (16.7 million) events, messages, artifacts and
 * parts per task, and 2^39 − 2 tasks per file; a write past it is refused (see `sqlite-task-keys.ts`),
 * and so is the migration of a file holding such a task.
 *
 * Schema version 5 adds `push_configs`: a task's push notification configs, keyed by (task key,
 * config id), with the wire fields as JSON and the delivery state — `delivered_seq`, the last
 * event delivered, is the outbox position: the task's events after it are pending (see
 * `stores/push-store.ts`), so an append writes nothing more. `open` is 1 while the config may
 * still have events to deliver (its task not finished, or not all delivered); the partial index
 * by next attempt time finds the due ones without visiting the others. `holder` is the process
 * delivering the config. Rows are deleted with their task (purge).
 *
 * Schema version 6 adds `tasks.trace_context`: the trace context the task was created in
 * (`traceparent`, and `tracestate` after a newline), which push deliveries, resumed streams and
 * references link back to (docs/observability.md). A column of the task row, not a table: it is
 * written with the row's one insert and read with it; no existing column could carry it without
 * putting it on the wire (`metadata` is the task's own). Tasks from before have none (NULL).
 */

import type Database from 'better-sqlite3';
import { asError, ConfigurationError } from '../../protocol/local-errors.js';
import { pendingMigrations, type SchemaMigration } from '../sql/schema-migrations.js';

/**
 * The active and terminal states as the released migrations wrote them into their partial
 * indexes: part of those migrations' text, so frozen here rather than derived from
 * `protocol/task-state.ts`. Queries that must use these indexes list the states the same way
 * (a test checks that they still do).
 */
export const MIGRATED_ACTIVE_STATES_SQL = `('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING')`;
export const MIGRATED_TERMINAL_STATES_SQL = `('TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED')`;

/** Every schema version so far, oldest first. Never edit a released entry; append a new one. */
export const SQLITE_MIGRATIONS: readonly SchemaMigration[] = [
  {
    version: 1,
    description: 'tasks, history, artifacts, artifact parts and event log',
    sql: `
      CREATE TABLE tasks (
        id TEXT PRIMARY KEY,
        agent TEXT NOT NULL,
        tenant TEXT NOT NULL,
        owner TEXT NOT NULL,
        context_id TEXT NOT NULL,
        state TEXT NOT NULL,
        status_time INTEGER NOT NULL,
        status TEXT NOT NULL,
        metadata TEXT,
        seq INTEGER NOT NULL,
        history_count INTEGER NOT NULL,
        artifact_count INTEGER NOT NULL,
        lease_holder TEXT,
        lease_expires_at INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX tasks_by_scope
        ON tasks (agent, tenant, owner, status_time DESC, id DESC);
      CREATE INDEX tasks_by_context
        ON tasks (agent, tenant, owner, context_id, status_time DESC, id DESC);
      CREATE INDEX tasks_by_state
        ON tasks (agent, tenant, owner, state, status_time DESC, id DESC);
      CREATE INDEX tasks_active_by_lease
        ON tasks (lease_expires_at) WHERE state IN ${MIGRATED_ACTIVE_STATES_SQL};
      CREATE INDEX tasks_terminal_by_time
        ON tasks (status_time) WHERE state IN ${MIGRATED_TERMINAL_STATES_SQL};
      CREATE INDEX tasks_by_lease_holder
        ON tasks (lease_holder) WHERE lease_holder IS NOT NULL;

      CREATE TABLE task_history (
        task_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        message TEXT NOT NULL,
        PRIMARY KEY (task_id, position)
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE task_artifacts (
        task_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        artifact_id TEXT NOT NULL,
        fields TEXT NOT NULL,
        part_count INTEGER NOT NULL,
        PRIMARY KEY (task_id, position)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX task_artifacts_by_id ON task_artifacts (task_id, artifact_id);

      CREATE TABLE task_artifact_parts (
        task_id TEXT NOT NULL,
        artifact_position INTEGER NOT NULL,
        position INTEGER NOT NULL,
        part TEXT NOT NULL,
        PRIMARY KEY (task_id, artifact_position, position)
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE task_events (
        task_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        event TEXT NOT NULL,
        PRIMARY KEY (task_id, seq)
      ) STRICT, WITHOUT ROWID;
    `,
  },
  {
    version: 2,
    description: 'drop the unused index of artifacts by id',
    sql: `DROP INDEX task_artifacts_by_id;`,
  },
  {
    // See the module documentation; ~10% fewer WAL frames per SendMessage.
    version: 3,
    description: 'listing indexes in ascending order, so that new tasks are appended',
    sql: `
      DROP INDEX tasks_by_scope;
      DROP INDEX tasks_by_context;
      DROP INDEX tasks_by_state;
      CREATE INDEX tasks_by_scope ON tasks (agent, tenant, owner, status_time, id);
      CREATE INDEX tasks_by_context ON tasks (agent, tenant, owner, context_id, status_time, id);
      CREATE INDEX tasks_by_state ON tasks (agent, tenant, owner, state, status_time, id);
    `,
  },
  {
    // See the module documentation. 16777215 is 2^24 - 1, the largest position a key can hold.
    version: 4,
    description: 'integer task keys; child rows keyed by task key and position, appended in order',
    sql: `
      CREATE TEMP TABLE v4_guard (ok INTEGER NOT NULL);
      CREATE TEMP TRIGGER v4_guard_check BEFORE INSERT ON v4_guard WHEN NEW.ok = 0
      BEGIN
        SELECT RAISE(ABORT, 'a task holds more events (16777215), messages, artifacts or artifact parts (16777216 each) than schema version 4 can key; keep this file on the Tandem that wrote it');
      END;
      INSERT INTO v4_guard SELECT
        NOT EXISTS (SELECT 1 FROM task_events WHERE seq > 16777215)
        AND NOT EXISTS (SELECT 1 FROM task_history WHERE position > 16777215)
        AND NOT EXISTS (SELECT 1 FROM task_artifacts WHERE position > 16777215)
        AND NOT EXISTS (SELECT 1 FROM task_artifact_parts GROUP BY task_id HAVING count(*) > 16777216);
      DROP TRIGGER v4_guard_check;
      DROP TABLE v4_guard;

      ALTER TABLE tasks RENAME TO v3_tasks;
      ALTER TABLE task_history RENAME TO v3_task_history;
      ALTER TABLE task_artifacts RENAME TO v3_task_artifacts;
      ALTER TABLE task_artifact_parts RENAME TO v3_task_artifact_parts;
      ALTER TABLE task_events RENAME TO v3_task_events;

      CREATE TABLE tasks (
        key INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        agent TEXT NOT NULL,
        tenant TEXT NOT NULL,
        owner TEXT NOT NULL,
        context_id TEXT NOT NULL,
        state TEXT NOT NULL,
        status_time INTEGER NOT NULL,
        status TEXT NOT NULL,
        metadata TEXT,
        seq INTEGER NOT NULL,
        history_count INTEGER NOT NULL,
        artifact_count INTEGER NOT NULL,
        lease_holder TEXT,
        lease_expires_at INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE task_history (k INTEGER PRIMARY KEY, message TEXT NOT NULL) STRICT;
      CREATE TABLE task_artifacts (
        k INTEGER PRIMARY KEY,
        artifact_id TEXT NOT NULL,
        fields TEXT NOT NULL,
        part_count INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE task_artifact_parts (
        k INTEGER PRIMARY KEY,
        artifact_position INTEGER NOT NULL,
        part TEXT NOT NULL
      ) STRICT;
      CREATE TABLE task_events (k INTEGER PRIMARY KEY, event TEXT NOT NULL) STRICT;

      INSERT INTO tasks (id, agent, tenant, owner, context_id, state, status_time, status,
          metadata, seq, history_count, artifact_count, lease_holder, lease_expires_at, created_at)
        SELECT id, agent, tenant, owner, context_id, state, status_time, status, metadata, seq,
          history_count, artifact_count, lease_holder, lease_expires_at, created_at
        FROM v3_tasks ORDER BY created_at, id;
      INSERT INTO task_history (k, message)
        SELECT (t.key << 24) + h.position, h.message
        FROM v3_task_history AS h JOIN tasks AS t ON t.id = h.task_id ORDER BY 1;
      INSERT INTO task_artifacts (k, artifact_id, fields, part_count)
        SELECT (t.key << 24) + a.position, a.artifact_id, a.fields, a.part_count
        FROM v3_task_artifacts AS a JOIN tasks AS t ON t.id = a.task_id ORDER BY 1;
      INSERT INTO task_artifact_parts (k, artifact_position, part)
        SELECT (t.key << 24) - 1
            + row_number() OVER (PARTITION BY p.task_id ORDER BY p.artifact_position, p.position),
          p.artifact_position, p.part
        FROM v3_task_artifact_parts AS p JOIN tasks AS t ON t.id = p.task_id ORDER BY 1;
      INSERT INTO task_events (k, event)
        SELECT (t.key << 24) + e.seq, e.event
        FROM v3_task_events AS e JOIN tasks AS t ON t.id = e.task_id ORDER BY 1;

      DROP TABLE v3_tasks;
      DROP TABLE v3_task_history;
      DROP TABLE v3_task_artifacts;
      DROP TABLE v3_task_artifact_parts;
      DROP TABLE v3_task_events;

      CREATE INDEX tasks_by_scope ON tasks (agent, tenant, owner, status_time, id);
      CREATE INDEX tasks_by_context ON tasks (agent, tenant, owner, context_id, status_time, id);
      CREATE INDEX tasks_by_state ON tasks (agent, tenant, owner, state, status_time, id);
      CREATE INDEX tasks_active_by_lease
        ON tasks (lease_expires_at) WHERE state IN ${MIGRATED_ACTIVE_STATES_SQL};
      CREATE INDEX tasks_terminal_by_time
        ON tasks (status_time) WHERE state IN ${MIGRATED_TERMINAL_STATES_SQL};
      CREATE INDEX tasks_by_lease_holder
        ON tasks (lease_holder) WHERE lease_holder IS NOT NULL;
    `,
  },
  {
    version: 5,
    description: 'push notification configs and their delivery state',
    sql: `
      CREATE TABLE push_configs (
        task_key INTEGER NOT NULL,
        id TEXT NOT NULL,
        config TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        delivered_seq INTEGER NOT NULL,
        failures INTEGER NOT NULL,
        failing INTEGER NOT NULL,
        next_attempt_at INTEGER NOT NULL,
        last_success_at INTEGER,
        last_error TEXT,
        last_error_at INTEGER,
        holder TEXT,
        open INTEGER NOT NULL,
        PRIMARY KEY (task_key, id)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX push_configs_due ON push_configs (next_attempt_at) WHERE open = 1;
    `,
  },
  {
    version: 6,
    description: 'the trace context each task was created in',
    sql: `ALTER TABLE tasks ADD COLUMN trace_context TEXT;`,
  },
];

/**
 * Brings the database at `path` to the latest schema version, in one write transaction so that
 * two processes opening a new file at once cannot both migrate it, and so that a migration that
 * fails leaves the file as it was. Throws a `ConfigurationError` when the file was written by a
 * newer Tandem, or when a migration fails (saying which and why). Returns the schema version.
 */
export function migrateSqliteSchema(db: Database.Database, path: string): number {
  const migrate = db.transaction((): number => {
    const found: unknown = db.pragma('user_version', { simple: true });
    const current = typeof found === 'number' ? found : Number.NaN;
    const target = { name: path, kind: 'database file' };
    for (const migration of pendingMigrations(target, current, SQLITE_MIGRATIONS)) {
      try {
        db.exec(migration.sql);
      } catch (error) {
        throw new ConfigurationError(
          `${path} cannot be migrated to schema version ${migration.version} (${migration.description}): ${asError(error).message}`,
          { cause: error },
        );
      }
      db.pragma(`user_version = ${migration.version}`);
    }
    return SQLITE_MIGRATIONS.length;
  });
  return migrate.immediate();
}
