/**
 * The PostgreSQL store's schema and its versioned migrations. A store brings the schema up to
 * date when it opens, in one transaction under an advisory lock, so that replicas starting
 * together migrate exactly once and never see a half-migrated schema. A schema migrated by a
 * newer Tandem is refused rather than used: its meaning may have changed.
 *
 * Every JSON value is stored as `text`, not `jsonb`: nothing is queried inside it, `text` keeps
 * the bytes the runtime wrote (an event's `json` must come back identical; `jsonb` reorders keys,
 * drops duplicate keys and rejects `\u0000`), and it costs no parsing on the server.
 */

import { pendingMigrations, type SchemaMigration } from '../sql/schema-migrations.js';
import {
  toNumber,
  withTransaction,
  type PostgresDatabase,
  type PostgresNames,
} from './postgres-database.js';

/**
 * The active and terminal states as the released migrations wrote them into their partial
 * indexes: part of those migrations' text, so frozen here rather than derived from
 * `protocol/task-state.ts`. Queries that must use these indexes list the states the same way
 * (a test checks that they still do).
 */
export const MIGRATED_ACTIVE_STATES_SQL = `('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING')`;
export const MIGRATED_TERMINAL_STATES_SQL = `('TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED')`;

/** One step of the schema's history, for the schema's names. Never edit a released one. */
interface Migration {
  readonly description: string;
  readonly up: (names: PostgresNames) => string;
}

const MIGRATIONS: readonly Migration[] = [
  {
    description: 'tasks, event log, history, artifacts and artifact parts',
    up: (n) => `
      -- One row per task: its scope, the columns listing filters and sorts on, the projection's
      -- status and metadata (JSON text), the last event's seq (the version every append checks)
      -- and the lease. fillfactor leaves room for HOT updates: most appends change only
      -- unindexed columns (seq, history_count).
      CREATE TABLE ${n.tasks} (
        id text PRIMARY KEY,
        agent text NOT NULL,
        tenant text NOT NULL,
        owner text NOT NULL,
        context_id text NOT NULL,
        state text NOT NULL,
        status_time bigint NOT NULL,
        status text NOT NULL,
        metadata text,
        seq bigint NOT NULL,
        history_count integer NOT NULL,
        lease_holder text,
        lease_expires_at timestamptz NOT NULL DEFAULT '-infinity',
        created_at timestamptz NOT NULL DEFAULT now()
      ) WITH (fillfactor = 80);
      CREATE INDEX tasks_listing ON ${n.tasks} (agent, tenant, owner, status_time DESC, id DESC);
      CREATE INDEX tasks_by_context
        ON ${n.tasks} (agent, tenant, owner, context_id, status_time DESC, id DESC);
      CREATE INDEX tasks_by_state
        ON ${n.tasks} (agent, tenant, owner, state, status_time DESC, id DESC);
      CREATE INDEX tasks_running_by_lease
        ON ${n.tasks} (lease_expires_at) WHERE state IN ${MIGRATED_ACTIVE_STATES_SQL};
      CREATE INDEX tasks_by_lease_holder
        ON ${n.tasks} (lease_holder) WHERE lease_holder IS NOT NULL;
      CREATE INDEX tasks_terminal_by_time
        ON ${n.tasks} (status_time) WHERE state IN ${MIGRATED_TERMINAL_STATES_SQL};

      -- The append-only log: StreamResponse JSON exactly as the runtime serialized it.
      CREATE TABLE ${n.events} (
        task_id text NOT NULL REFERENCES ${n.tasks} (id) ON DELETE CASCADE,
        seq bigint NOT NULL,
        event text NOT NULL,
        PRIMARY KEY (task_id, seq)
      );

      -- History messages; position counts from 0, tasks.history_count is the next one.
      CREATE TABLE ${n.history} (
        task_id text NOT NULL REFERENCES ${n.tasks} (id) ON DELETE CASCADE,
        position integer NOT NULL,
        message text NOT NULL,
        PRIMARY KEY (task_id, position)
      );

      -- Artifacts in order; fields is the artifact's JSON without its parts, which live one per
      -- row so that appending a chunk inserts the chunk and rewrites nothing else.
      CREATE TABLE ${n.artifacts} (
        task_id text NOT NULL REFERENCES ${n.tasks} (id) ON DELETE CASCADE,
        position integer NOT NULL,
        artifact_id text NOT NULL,
        fields text NOT NULL,
        part_count integer NOT NULL,
        PRIMARY KEY (task_id, position),
        UNIQUE (task_id, artifact_id)
      );
      CREATE TABLE ${n.parts} (
        task_id text NOT NULL,
        artifact_position integer NOT NULL,
        position integer NOT NULL,
        part text NOT NULL,
        PRIMARY KEY (task_id, artifact_position, position),
        FOREIGN KEY (task_id, artifact_position)
          REFERENCES ${n.artifacts} (task_id, position) ON DELETE CASCADE
      );
    `,
  },
  {
    description: 'push notification configs and their delivery state',
    up: (n) => `
      -- A task's push configs, deleted with it. delivered_seq is the outbox position: the task's
      -- events after it are pending deliveries (see stores/push-store.ts), so an append writes
      -- nothing more. open is true while the config may still have events to deliver; the
      -- partial index by next attempt time finds the due ones. holder and holder_expires_at
      -- (database clock) say which replica delivers it.
      CREATE TABLE ${n.pushConfigs} (
        task_id text NOT NULL REFERENCES ${n.tasks} (id) ON DELETE CASCADE,
        id text NOT NULL,
        config text NOT NULL,
        created_at bigint NOT NULL,
        delivered_seq bigint NOT NULL,
        failures integer NOT NULL DEFAULT 0,
        failing boolean NOT NULL DEFAULT false,
        next_attempt_at bigint NOT NULL DEFAULT 0,
        last_success_at bigint,
        last_error text,
        last_error_at bigint,
        holder text,
        holder_expires_at timestamptz NOT NULL DEFAULT '-infinity',
        open boolean NOT NULL DEFAULT true,
        PRIMARY KEY (task_id, id)
      );
      CREATE INDEX push_configs_due ON ${n.pushConfigs} (next_attempt_at) WHERE open;
      CREATE INDEX push_configs_by_holder ON ${n.pushConfigs} (holder) WHERE holder IS NOT NULL;
    `,
  },
  {
    description: 'integer task keys for the child rows; lease heartbeats per holder',
    up: (n) => `
      -- Child rows are keyed by the task's integer key instead of its id (a UUID's 37 bytes in
      -- every row and index entry), and have no foreign keys: rows are inserted only with their
      -- task's conditional write (they select from it) and deleted with it by the purge, so the
      -- per-row trigger that checked them cost every insert a lookup and a row lock for nothing.
      ALTER TABLE ${n.tasks} DROP COLUMN created_at;
      ALTER TABLE ${n.tasks} ADD COLUMN key bigint GENERATED ALWAYS AS IDENTITY;
      ALTER TABLE ${n.tasks} ADD CONSTRAINT tasks_key UNIQUE (key);
      -- Renewals go to lease_holders now (one row per holder), so no query finds tasks by holder.
      DROP INDEX ${n.quotedSchema}.tasks_by_lease_holder;
      -- The listing indexes ascending: new tasks (the latest status time) then go to the right
      -- edge of the tree, whose pages split 90/10, where descending keys went to the left edge
      -- and left every page half empty. Listing newest first reads them backwards, as fast.
      DROP INDEX ${n.quotedSchema}.tasks_listing;
      DROP INDEX ${n.quotedSchema}.tasks_by_context;
      DROP INDEX ${n.quotedSchema}.tasks_by_state;
      CREATE INDEX tasks_listing ON ${n.tasks} (agent, tenant, owner, status_time, id);
      CREATE INDEX tasks_by_context
        ON ${n.tasks} (agent, tenant, owner, context_id, status_time, id);
      CREATE INDEX tasks_by_state ON ${n.tasks} (agent, tenant, owner, state, status_time, id);

      CREATE TABLE ${n.quotedSchema}.task_events_v3 (
        task_key bigint NOT NULL,
        seq bigint NOT NULL,
        event text NOT NULL,
        PRIMARY KEY (task_key, seq)
      );
      INSERT INTO ${n.quotedSchema}.task_events_v3 (task_key, seq, event)
        SELECT t.key, e.seq, e.event FROM ${n.events} e JOIN ${n.tasks} t ON t.id = e.task_id;

      CREATE TABLE ${n.quotedSchema}.task_history_v3 (
        task_key bigint NOT NULL,
        position integer NOT NULL,
        message text NOT NULL,
        PRIMARY KEY (task_key, position)
      );
      INSERT INTO ${n.quotedSchema}.task_history_v3 (task_key, position, message)
        SELECT t.key, h.position, h.message FROM ${n.history} h JOIN ${n.tasks} t ON t.id = h.task_id;

      CREATE TABLE ${n.quotedSchema}.task_artifacts_v3 (
        task_key bigint NOT NULL,
        position integer NOT NULL,
        artifact_id text NOT NULL,
        fields text NOT NULL,
        part_count integer NOT NULL,
        PRIMARY KEY (task_key, position),
        UNIQUE (task_key, artifact_id)
      );
      INSERT INTO ${n.quotedSchema}.task_artifacts_v3
          (task_key, position, artifact_id, fields, part_count)
        SELECT t.key, a.position, a.artifact_id, a.fields, a.part_count
        FROM ${n.artifacts} a JOIN ${n.tasks} t ON t.id = a.task_id;

      CREATE TABLE ${n.quotedSchema}.task_artifact_parts_v3 (
        task_key bigint NOT NULL,
        artifact_position integer NOT NULL,
        position integer NOT NULL,
        part text NOT NULL,
        PRIMARY KEY (task_key, artifact_position, position)
      );
      INSERT INTO ${n.quotedSchema}.task_artifact_parts_v3
          (task_key, artifact_position, position, part)
        SELECT t.key, p.artifact_position, p.position, p.part
        FROM ${n.parts} p JOIN ${n.tasks} t ON t.id = p.task_id;

      DROP TABLE ${n.parts};
      DROP TABLE ${n.artifacts};
      DROP TABLE ${n.history};
      DROP TABLE ${n.events};
      ALTER TABLE ${n.quotedSchema}.task_events_v3 RENAME TO task_events;
      ALTER TABLE ${n.quotedSchema}.task_history_v3 RENAME TO task_history;
      ALTER TABLE ${n.quotedSchema}.task_artifacts_v3 RENAME TO task_artifacts;
      ALTER TABLE ${n.quotedSchema}.task_artifact_parts_v3 RENAME TO task_artifact_parts;
      ALTER INDEX ${n.quotedSchema}.task_events_v3_pkey RENAME TO task_events_pkey;
      ALTER INDEX ${n.quotedSchema}.task_history_v3_pkey RENAME TO task_history_pkey;
      ALTER INDEX ${n.quotedSchema}.task_artifacts_v3_pkey RENAME TO task_artifacts_pkey;
      ALTER INDEX ${n.quotedSchema}.task_artifacts_v3_task_key_artifact_id_key
        RENAME TO task_artifacts_by_id;
      ALTER INDEX ${n.quotedSchema}.task_artifact_parts_v3_pkey RENAME TO task_artifact_parts_pkey;

      -- The heartbeat of each lease holder (a replica): renewing every lease of a holder is one
      -- row, however many tasks it runs. A task's lease is live while its own expiry (set when
      -- it was taken) or its holder's heartbeat is in the future (database clock).
      CREATE TABLE ${n.leaseHolders} (
        holder text PRIMARY KEY,
        expires_at timestamptz NOT NULL
      );
    `,
  },
  {
    description: 'the trace context each task was created in',
    // traceparent, then tracestate after a newline: what push deliveries, resumed streams and
    // references link back to (docs/observability.md). Nullable and without a default, so that
    // adding it rewrites nothing; tasks from before have none.
    up: (n) => `ALTER TABLE ${n.tasks} ADD COLUMN trace_context text;`,
  },
];

/** The schema version this code writes and reads. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** The migrations of the schema `names` describe, numbered 1, 2, ... */
function migrationsFor(names: PostgresNames): SchemaMigration[] {
  return MIGRATIONS.map((migration, index) => ({
    version: index + 1,
    description: migration.description,
    sql: migration.up(names),
  }));
}

/**
 * Creates the schema if missing and applies the migrations it lacks, all in one transaction
 * holding a transaction-scoped advisory lock keyed by the schema name: concurrent openers wait,
 * then find nothing left to do. Rejects with `ConfigurationError` when the schema is newer than
 * this code.
 */
export async function migrateSchema(db: PostgresDatabase): Promise<void> {
  const { names } = db;
  await withTransaction(db, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
      `tandem migrations ${names.schema}`,
    ]);
    // CREATE SCHEMA IF NOT EXISTS needs the CREATE privilege even when the schema exists.
    const found = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [
      names.schema,
    ]);
    if (found.rowCount === 0) await client.query(`CREATE SCHEMA ${names.quotedSchema}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${names.migrations} (
         version integer PRIMARY KEY,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const current = await client.query<{ version: string | number }>(
      `SELECT COALESCE(max(version), 0) AS version FROM ${names.migrations}`,
    );
    const target = { name: `PostgreSQL schema "${names.schema}"`, kind: 'schema' };
    const version = toNumber(current.rows[0]?.version ?? 0);
    for (const migration of pendingMigrations(target, version, migrationsFor(names))) {
      await client.query(migration.sql);
      await client.query(`INSERT INTO ${names.migrations} (version) VALUES ($1)`, [
        migration.version,
      ]);
    }
  });
}
