/**
 * Building blocks of the write statements. A write is one SQL statement whenever it can be: the
 * conditional update (or insert) of the task row is a common table expression `t`, and the log,
 * history and artifact inserts select `FROM t`, so they happen exactly when the version check
 * passed — and atomically with it, without an explicit transaction or extra round trips.
 */

import type { QueryConfig } from 'pg';
import type { PostgresNames } from './postgres-database.js';

/** Parameters of a statement under construction, numbered in the order they are added. */
export class StatementParams {
  readonly values: unknown[] = [];

  /** Adds a value and returns its typed placeholder, e.g. `$3::text[]`. */
  add(value: unknown, type: string): string {
    this.values.push(value);
    return `$${this.values.length}::${type}`;
  }
}

/** An artifact write, as one statement applies it. */
export interface ArtifactWrite {
  readonly artifactId: string;
  /** The artifact's JSON without its parts; written unless `keepFields`. */
  readonly fields: string;
  /** Keep the stored fields of an existing artifact (an append that changes none of them). */
  readonly keepFields: boolean;
  /** Append `parts` to an existing artifact; otherwise they replace its parts. */
  readonly append: boolean;
  /** The parts' JSON, one string each. */
  readonly parts: readonly string[];
}

/**
 * The log and history inserts, for a task row `t(id, seq, history_count)` that already counts
 * them: the new events end at `t.seq`, the new messages at `t.history_count - 1`.
 */
export function logInserts(
  n: PostgresNames,
  p: StatementParams,
  events: readonly string[],
  messages: readonly string[],
): string {
  const e = p.add(events, 'text[]');
  const h = p.add(messages, 'text[]');
  return `
    e AS (
      INSERT INTO ${n.events} (task_id, seq, event)
      SELECT t.id, t.seq - cardinality(${e}) + u.ord, u.event
      FROM t, unnest(${e}) WITH ORDINALITY AS u (event, ord)
    ),
    h AS (
      INSERT INTO ${n.history} (task_id, position, message)
      SELECT t.id, t.history_count - cardinality(${h}) + u.ord - 1, u.message
      FROM t, unnest(${h}) WITH ORDINALITY AS u (message, ord)
    )`;
}

/**
 * Adds or updates one artifact of the task row `t(id)`, in O(parts written): a new artifact goes
 * after the last one; an existing one keeps its position and either gets the new parts appended
 * after its `part_count` or has its parts overwritten in place and the surplus deleted (the
 * rows overwritten and deleted are disjoint, as one statement requires).
 */
export function artifactUpsert(n: PostgresNames, p: StatementParams, write: ArtifactWrite): string {
  const id = p.add(write.artifactId, 'text');
  const fields = p.add(write.fields, 'text');
  const keep = p.add(write.keepFields, 'boolean');
  const append = p.add(write.append, 'boolean');
  const parts = p.add(write.parts, 'text[]');
  return `
    a AS (
      INSERT INTO ${n.artifacts} AS x (task_id, position, artifact_id, fields, part_count)
      SELECT t.id,
             (SELECT COALESCE(max(y.position) + 1, 0) FROM ${n.artifacts} y WHERE y.task_id = t.id),
             ${id}, ${fields}, cardinality(${parts})
      FROM t
      ON CONFLICT (task_id, artifact_id) DO UPDATE SET
        fields = CASE WHEN ${keep} THEN x.fields ELSE EXCLUDED.fields END,
        part_count = CASE WHEN ${append} THEN x.part_count ELSE 0 END + EXCLUDED.part_count
      RETURNING x.task_id, x.position, x.part_count
    ),
    ad AS (
      DELETE FROM ${n.parts} d USING a
      WHERE NOT ${append} AND d.task_id = a.task_id AND d.artifact_position = a.position
        AND d.position >= a.part_count
    ),
    ap AS (
      INSERT INTO ${n.parts} (task_id, artifact_position, position, part)
      SELECT a.task_id, a.position, a.part_count - cardinality(${parts}) + u.ord - 1, u.part
      FROM a, unnest(${parts}) WITH ORDINALITY AS u (part, ord)
      ON CONFLICT (task_id, artifact_position, position) DO UPDATE SET part = EXCLUDED.part
    )`;
}

/** One artifact write on its own, inside a transaction that already checked the version. */
export function artifactStatement(
  n: PostgresNames,
  taskId: string,
  write: ArtifactWrite,
): QueryConfig {
  const p = new StatementParams();
  const id = p.add(taskId, 'text');
  const text = `WITH t AS (SELECT ${id} AS id), ${artifactUpsert(n, p, write)} SELECT 1`;
  return { name: 'tandem_artifact', text, values: p.values };
}

/** The current fields of an artifact, to merge an append's new fields into. */
export function artifactFieldsQuery(
  n: PostgresNames,
  taskId: string,
  artifactId: string,
): QueryConfig {
  return {
    name: 'tandem_artifact_fields',
    text: `SELECT fields FROM ${n.artifacts} WHERE task_id = $1 AND artifact_id = $2`,
    values: [taskId, artifactId],
  };
}

/**
 * Selects the task row `t(id, seq)` — one row when the write happened — and announces it on the
 * store's channel, delivered when the write commits. `when` (SQL) skips the announcement, e.g.
 * for a projection-only change that added no event.
 */
export function notifySelect(n: PostgresNames, p: StatementParams, when = 'true'): string {
  const channel = p.add(n.channel, 'text');
  return `SELECT t.seq, CASE WHEN ${when} THEN pg_notify(${channel}, t.id || ':' || t.seq) END AS notified
    FROM t`;
}
