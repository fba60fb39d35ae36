/**
 * The push configs of the PostgreSQL store (`push_configs`, schema version 2). Claims are leases
 * on the database clock, like task leases: a replica claims due configs with `FOR UPDATE SKIP
 * LOCKED`, so that two replicas claiming at once never get the same one, and a config whose
 * holder stopped renewing is claimed by another replica once its lease expires. A delivery is
 * recorded only while its replica still holds the config.
 */

import type {
  PushConfigPage,
  PushConfigRecord,
  PushDeliveryUpdate,
  PutConfigOptions,
  StoredPushConfig,
  TaskPushStore,
} from '../push-store.js';
import type { TaskScope } from '../task-store.js';
import {
  deliveryUpdateValues,
  pushConfigFromRow,
  pushConfigJson,
  type PushConfigRow,
} from '../sql/push-config-rows.js';
import { withTransaction, type PostgresDatabase } from './postgres-database.js';

const COLUMNS = `c.task_id, c.id, c.config, c.created_at, c.delivered_seq, c.failures, c.failing,
  c.next_attempt_at, c.last_success_at, c.last_error, c.last_error_at, t.seq, t.state,
  t.trace_context`;
/** The first key of the advisory locks that serialise creations of one task's configs. */
const PUT_LOCK_SPACE = 0x7055;
const LEASE = `now() + $2::double precision * interval '1 millisecond'`;

/** The push configs of the store on `db`. */
export function postgresPushConfigs(db: PostgresDatabase): TaskPushStore {
  const { tasks, pushConfigs: configs } = db.names;
  const from = `${configs} AS c JOIN ${tasks} AS t ON t.id = c.task_id`;
  const scoped = 't.id = $1 AND t.agent = $2 AND t.tenant = $3 AND t.owner = $4';
  const scopeValues = (scope: TaskScope, taskId: string): string[] => [
    taskId,
    scope.agent,
    scope.tenant,
    scope.owner,
  ];
  const one = async (taskId: string, id: string): Promise<StoredPushConfig | undefined> => {
    const result = await db.pool.query<PushConfigRow>({
      name: 'tandem_push_get_any',
      text: `SELECT ${COLUMNS} FROM ${from} WHERE c.task_id = $1 AND c.id = $2`,
      values: [taskId, id],
    });
    const row = result.rows[0];
    return row === undefined ? undefined : pushConfigFromRow(row);
  };
  const get = async (
    scope: TaskScope,
    taskId: string,
    id: string,
  ): Promise<StoredPushConfig | undefined> => {
    const result = await db.pool.query<PushConfigRow>({
      name: 'tandem_push_get',
      text: `SELECT ${COLUMNS} FROM ${from} WHERE ${scoped} AND c.id = $5`,
      values: [...scopeValues(scope, taskId), id],
    });
    const row = result.rows[0];
    return row === undefined ? undefined : pushConfigFromRow(row);
  };
  const visible = async (scope: TaskScope, taskId: string): Promise<boolean> => {
    const result = await db.pool.query({
      name: 'tandem_push_task_visible',
      text: `SELECT 1 FROM ${tasks} AS t WHERE ${scoped}`,
      values: scopeValues(scope, taskId),
    });
    return result.rowCount === 1;
  };

  const insert = `INSERT INTO ${configs} (task_id, id, config, created_at, delivered_seq)
    SELECT t.id, $5, $6, $7, least(coalesce($8::bigint, t.seq), t.seq)
    FROM ${tasks} AS t WHERE ${scoped}`;
  const upsert = 'ON CONFLICT (task_id, id) DO UPDATE SET config = EXCLUDED.config, open = true';
  const put = `${insert} ${upsert}`;
  // A replacement (same id) never counts; a new config only while the task has room for it.
  const putLimited = `${insert} AND (
      EXISTS (SELECT 1 FROM ${configs} AS o WHERE o.task_id = t.id AND o.id = $5)
      OR (SELECT count(*) FROM ${configs} AS o WHERE o.task_id = t.id) < $9::bigint)
    ${upsert}`;

  return {
    async putConfig(scope: TaskScope, config: PushConfigRecord, options: PutConfigOptions = {}) {
      const { fromSeq, maxConfigs } = options;
      const values = [
        ...scopeValues(scope, config.taskId),
        config.id,
        pushConfigJson(config),
        config.createdAt,
        fromSeq ?? null,
      ];
      if (maxConfigs === undefined) {
        // One statement: the starting position is the task's seq as this write sees it.
        const result = await db.pool.query({ name: 'tandem_push_put', text: put, values });
        return result.rowCount === 0 ? undefined : get(scope, config.taskId, config.id);
      }
      // Creations of one task's configs take turns (a lock for the transaction), so that the
      // count the insert is conditional on includes every config committed before it.
      const stored = await withTransaction(db, async (client) => {
        await client.query({
          name: 'tandem_push_put_lock',
          text: 'SELECT pg_advisory_xact_lock($1, hashtext($2))',
          values: [PUT_LOCK_SPACE, config.taskId],
        });
        const result = await client.query({
          name: 'tandem_push_put_limited',
          text: putLimited,
          values: [...values, maxConfigs],
        });
        return result.rowCount !== 0;
      });
      if (stored) return get(scope, config.taskId, config.id);
      return (await visible(scope, config.taskId)) ? 'limit-reached' : undefined;
    },

    getConfig: get,

    async listConfigs(scope: TaskScope, taskId: string, limit: number, afterId?: string) {
      if (!(await visible(scope, taskId))) return undefined;
      const result = await db.pool.query<PushConfigRow>({
        name: 'tandem_push_list',
        text: `SELECT ${COLUMNS} FROM ${from} WHERE ${scoped} AND c.id > $5
               ORDER BY c.id LIMIT $6`,
        values: [...scopeValues(scope, taskId), afterId ?? '', limit + 1],
      });
      const configs = result.rows.slice(0, limit).map(pushConfigFromRow);
      const page: PushConfigPage =
        result.rows.length > limit
          ? { configs, nextAfterId: configs[configs.length - 1]?.config.id as string }
          : { configs };
      return page;
    },

    async deleteConfig(scope: TaskScope, taskId: string, id: string) {
      const result = await db.pool.query<{ deleted: boolean }>({
        name: 'tandem_push_delete',
        text: `WITH gone AS (
                 DELETE FROM ${configs} AS c USING ${tasks} AS t
                 WHERE c.task_id = t.id AND ${scoped} AND c.id = $5 RETURNING 1)
               SELECT EXISTS (SELECT 1 FROM gone) AS deleted`,
        values: [...scopeValues(scope, taskId), id],
      });
      if (result.rows[0]?.deleted === true) return true;
      return (await visible(scope, taskId)) ? false : undefined;
    },

    async claimDue(holder: string, leaseMs: number, limit: number) {
      if (limit <= 0) return [];
      // Configs fully delivered to a finished task are closed first, so that the claim's
      // index range holds only live ones.
      await db.pool.query({
        name: 'tandem_push_close',
        text: `UPDATE ${configs} AS c SET open = false FROM ${tasks} AS t
               WHERE c.open AND c.task_id = t.id AND c.delivered_seq >= t.seq
                 AND t.state IN ('TASK_STATE_COMPLETED', 'TASK_STATE_FAILED',
                                 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED')
                 AND c.next_attempt_at <= $1`,
        values: [Date.now()],
      });
      const result = await db.pool.query<PushConfigRow>({
        name: 'tandem_push_claim_due',
        text: `WITH due AS (
                 SELECT c.task_id, c.id FROM ${from}
                 WHERE c.open AND c.next_attempt_at <= $1 AND c.delivered_seq < t.seq
                   AND c.holder IS DISTINCT FROM $3
                   AND (c.holder IS NULL OR c.holder_expires_at <= now())
                 ORDER BY c.next_attempt_at LIMIT $4
                 FOR UPDATE OF c SKIP LOCKED)
               UPDATE ${configs} AS c SET holder = $3, holder_expires_at = ${LEASE}
               FROM due, ${tasks} AS t
               WHERE c.task_id = due.task_id AND c.id = due.id AND t.id = c.task_id
               RETURNING ${COLUMNS}`,
        values: [Date.now(), leaseMs, holder, limit],
      });
      return result.rows.map(pushConfigFromRow);
    },

    async claim(holder: string, leaseMs: number, taskId: string, id: string) {
      const result = await db.pool.query<PushConfigRow>({
        name: 'tandem_push_claim',
        text: `UPDATE ${configs} AS c SET holder = $3, holder_expires_at = ${LEASE}, open = true
               FROM ${tasks} AS t
               WHERE c.task_id = $1 AND c.id = $4 AND t.id = c.task_id
                 AND (c.holder IS NULL OR c.holder = $3 OR c.holder_expires_at <= now())
               RETURNING ${COLUMNS}`,
        values: [taskId, leaseMs, holder, id],
      });
      const row = result.rows[0];
      return row === undefined ? undefined : pushConfigFromRow(row);
    },

    async renewClaims(holder: string, leaseMs: number) {
      await db.pool.query({
        name: 'tandem_push_renew',
        text: `UPDATE ${configs} SET holder_expires_at = now() + $2::double precision * interval '1 millisecond'
               WHERE holder = $1`,
        values: [holder, leaseMs],
      });
    },

    async release(holder: string, taskId: string, id: string) {
      await db.pool.query({
        name: 'tandem_push_release',
        text: `UPDATE ${configs} SET holder = NULL, holder_expires_at = '-infinity'
               WHERE task_id = $1 AND id = $2 AND holder = $3`,
        values: [taskId, id, holder],
      });
    },

    async recordDelivery(holder: string, taskId: string, id: string, update: PushDeliveryUpdate) {
      const values = deliveryUpdateValues(update);
      const result = await db.pool.query({
        name: 'tandem_push_record',
        text: `UPDATE ${configs} SET delivered_seq = $1, failures = $2, failing = $3::int = 1,
                 next_attempt_at = $4, last_success_at = coalesce($5, last_success_at),
                 last_error = coalesce($6, last_error), last_error_at = coalesce($7, last_error_at)
               WHERE task_id = $8 AND id = $9 AND holder = $10`,
        values: [...values, taskId, id, holder],
      });
      return result.rowCount === 0 ? undefined : one(taskId, id);
    },
  };
}
