/**
 * The one statement that writes a batch: every task's write of the batch (`postgres-task-write.ts`)
 * at once, as multi-row inserts and updates over arrays, so that a batch of any size is one
 * prepared statement, one round trip and one commit. The task rows are the conditional part — a
 * creation inserts its row unless the id exists, an append updates its row only at the expected
 * seq — and every other row selects from the rows written, so that a refused write adds nothing,
 * and nothing is half written: a statement is atomic.
 *
 * The batch's announcement goes out in the same statement (`pg_notify`, delivered on commit): the
 * task ids with the seq each reached, as JSON, in as few notifications as fit the 8,000-byte
 * payload limit — usually one per batch.
 *
 * Rows are locked in task id order (the arrays are sorted by id), so that two replicas' batches
 * that share tasks wait for each other rather than deadlock.
 */

import type { QueryConfig } from 'pg';
import { pushConfigJson } from '../sql/push-config-rows.js';
import type { PostgresNames } from './postgres-database.js';
import { endsLease, type TaskWrite } from './postgres-task-write.js';

/** The text of the batch statement for a schema's names. */
export function batchStatementText(n: PostgresNames): string {
  return `
    WITH v AS (
      SELECT * FROM unnest($1::int[], $2::boolean[], $3::text[], $4::bigint[], $5::bigint[],
        $6::int[], $7::text[], $8::text[], $9::bigint[], $10::boolean[], $11::text[], $12::text[],
        $13::text[], $14::text[], $15::text[], $16::text[], $17::float8[], $41::text[])
        AS v (ord, is_create, id, expected, seq, hist, status, state, status_time, ends_lease,
              agent, tenant, owner, context_id, metadata, holder, lease_ms, trace_context)
    ),
    c AS (
      INSERT INTO ${n.tasks} (id, agent, tenant, owner, context_id, state, status_time, status,
        metadata, seq, history_count, lease_holder, lease_expires_at, trace_context)
      SELECT id, agent, tenant, owner, context_id, state, status_time, status, metadata, seq, hist,
        CASE WHEN ends_lease THEN NULL ELSE holder END,
        CASE WHEN holder IS NULL OR ends_lease THEN '-infinity'::timestamptz
          ELSE now() + lease_ms * interval '1 millisecond' END,
        trace_context
      FROM v WHERE is_create ORDER BY ord
      ON CONFLICT (id) DO NOTHING
      RETURNING key, id, seq, history_count
    ),
    u AS (
      UPDATE ${n.tasks} t SET
        seq = v.seq,
        history_count = t.history_count + v.hist,
        status = COALESCE(v.status, t.status),
        state = COALESCE(v.state, t.state),
        status_time = COALESCE(v.status_time, t.status_time),
        lease_holder = CASE WHEN v.ends_lease THEN NULL ELSE t.lease_holder END,
        lease_expires_at = CASE WHEN v.ends_lease THEN '-infinity'::timestamptz
          ELSE t.lease_expires_at END
      FROM v WHERE NOT v.is_create AND t.id = v.id AND t.seq = v.expected
      RETURNING t.key, t.id, t.seq, t.history_count
    ),
    w AS (
      SELECT v.ord, x.key, x.seq, x.history_count - v.hist AS history_base
      FROM (SELECT * FROM c UNION ALL SELECT * FROM u) x JOIN v ON v.id = x.id
    ),
    e AS (
      INSERT INTO ${n.events} (task_key, seq, event)
      SELECT w.key, x.seq, x.event
      FROM unnest($18::int[], $19::bigint[], $20::text[]) AS x (ord, seq, event) JOIN w USING (ord)
    ),
    h AS (
      INSERT INTO ${n.history} (task_key, position, message)
      SELECT w.key, w.history_base + x.off, x.message
      FROM unnest($21::int[], $22::int[], $23::text[]) AS x (ord, off, message) JOIN w USING (ord)
    ),
    ao AS (
      SELECT w.key, x.*, y.position AS old_position
      FROM unnest($24::int[], $25::int[], $26::text[], $27::text[], $28::text[], $29::boolean[],
          $30::int[]) AS x (ord, rank, artifact_id, fields, set_fields, append, nparts)
        JOIN w USING (ord)
        LEFT JOIN ${n.artifacts} y ON y.task_key = w.key AND y.artifact_id = x.artifact_id
    ),
    au AS (
      UPDATE ${n.artifacts} y SET
        fields = COALESCE(ao.set_fields, y.fields),
        part_count = CASE WHEN ao.append THEN y.part_count ELSE 0 END + ao.nparts
      FROM ao WHERE y.task_key = ao.key AND y.position = ao.old_position
      RETURNING y.task_key, y.position, y.part_count, y.artifact_id, ao.append, ao.ord, ao.nparts
    ),
    ai AS (
      INSERT INTO ${n.artifacts} (task_key, position, artifact_id, fields, part_count)
      SELECT ao.key,
        COALESCE((SELECT max(z.position) + 1 FROM ${n.artifacts} z WHERE z.task_key = ao.key), 0)
          + ao.rank,
        ao.artifact_id, ao.fields, ao.nparts
      FROM ao WHERE ao.old_position IS NULL
      RETURNING task_key, position, artifact_id
    ),
    ar AS (
      SELECT task_key, position, part_count - nparts AS first_part, ord, artifact_id FROM au
      UNION ALL
      SELECT ai.task_key, ai.position, 0, ao.ord, ai.artifact_id
      FROM ai JOIN ao ON ao.key = ai.task_key AND ao.artifact_id = ai.artifact_id
    ),
    pd AS (
      DELETE FROM ${n.parts} d USING au
      WHERE NOT au.append AND d.task_key = au.task_key AND d.artifact_position = au.position
        AND d.position >= au.part_count
    ),
    pi AS (
      INSERT INTO ${n.parts} (task_key, artifact_position, position, part)
      SELECT ar.task_key, ar.position, ar.first_part + x.idx, x.part
      FROM unnest($31::int[], $32::text[], $33::int[], $34::text[]) AS x (ord, artifact_id, idx, part)
        JOIN ar ON ar.ord = x.ord AND ar.artifact_id = x.artifact_id
      ON CONFLICT (task_key, artifact_position, position) DO UPDATE SET part = EXCLUDED.part
    ),
    pc AS (
      INSERT INTO ${n.pushConfigs} (task_id, id, config, created_at, delivered_seq)
      SELECT v.id, x.id, x.config, x.created, 0
      FROM unnest($35::int[], $36::text[], $37::text[], $38::bigint[]) AS x (ord, id, config, created)
        JOIN w USING (ord) JOIN v USING (ord)
    ),
    announced AS (
      SELECT v.id, w.seq, w.ord,
        sum(octet_length(to_json(v.id)::text) + 24) OVER (ORDER BY w.ord) / 4000 AS chunk
      FROM w JOIN v USING (ord) WHERE w.seq > v.expected
    ),
    n AS (
      SELECT pg_notify($39, $40 || json_agg(json_build_array(id, seq) ORDER BY ord)::text || '}')
      FROM announced GROUP BY chunk
    )
    SELECT w.ord, w.seq, (SELECT count(*) FROM n) AS notifications FROM w`;
}

/** The values of the batch statement for `writes`, which must be sorted by task id. */
export function batchStatementValues(
  writes: readonly TaskWrite[],
  channel: string,
  announcementPrefix: string,
): unknown[] {
  const task: unknown[][] = Array.from({ length: 17 }, () => []);
  const events: unknown[][] = [[], [], []];
  const history: unknown[][] = [[], [], []];
  const artifacts: unknown[][] = Array.from({ length: 7 }, () => []);
  const parts: unknown[][] = [[], [], [], []];
  const configs: unknown[][] = [[], [], [], []];
  // The task rows' last column, numbered after the others ($41) so that theirs stay as they were.
  const traceContexts: unknown[] = [];
  writes.forEach((write, ord) => {
    const c = write.creation;
    const status = write.status;
    const row = [
      ord,
      c !== undefined,
      write.taskId,
      write.expectedSeq,
      write.seq,
      write.messages.length,
      status?.json ?? null,
      status?.state ?? null,
      status?.time ?? null,
      endsLease(write),
      c?.agent ?? null,
      c?.tenant ?? null,
      c?.owner ?? null,
      c?.contextId ?? null,
      c?.metadata ?? null,
      c?.leaseHolder ?? null,
      c?.leaseMs ?? null,
    ];
    row.forEach((value, i) => task[i]?.push(value));
    traceContexts.push(c?.traceContext ?? null);
    write.events.forEach((json, i) => {
      events[0]?.push(ord);
      events[1]?.push(write.expectedSeq + i + 1);
      events[2]?.push(json);
    });
    write.messages.forEach((json, i) => {
      history[0]?.push(ord);
      history[1]?.push(i);
      history[2]?.push(json);
    });
    for (const artifact of write.artifacts.values()) {
      const values = [
        ord,
        artifact.rank,
        artifact.artifactId,
        artifact.fields,
        artifact.setFields,
        artifact.append,
        artifact.parts.length,
      ];
      values.forEach((value, i) => artifacts[i]?.push(value));
      artifact.parts.forEach((json, i) => {
        parts[0]?.push(ord);
        parts[1]?.push(artifact.artifactId);
        parts[2]?.push(i);
        parts[3]?.push(json);
      });
    }
    for (const config of c?.pushConfigs ?? []) {
      configs[0]?.push(ord);
      configs[1]?.push(config.id);
      configs[2]?.push(pushConfigJson(config));
      configs[3]?.push(config.createdAt);
    }
  });
  return [
    ...task,
    ...events,
    ...history,
    ...artifacts,
    ...parts,
    ...configs,
    channel,
    announcementPrefix,
    traceContexts,
  ];
}

/** The batch statement, prepared under one name for every batch (its text never varies). */
export function batchStatement(
  n: PostgresNames,
  text: string,
  values: unknown[],
  prepared: boolean,
): QueryConfig {
  return prepared ? { name: `tandem_write_batch`, text, values } : { text, values };
}

/** A row of the batch statement's answer: a write that was applied, and the seq it reached. */
export interface BatchRow {
  readonly ord: number;
  readonly seq: string | number;
}
