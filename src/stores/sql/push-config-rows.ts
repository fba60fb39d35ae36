/**
 * Push config rows ↔ {@link StoredPushConfig}, for both SQL stores: the same columns, with the
 * wire fields of the config (url, token, authentication) and its protocol version as one JSON
 * text column.
 */

import type { AuthenticationInfo } from '../../protocol/generated/types.js';
import { isTerminalState } from '../../protocol/task-state.js';
import type { PushConfigRecord, PushDeliveryUpdate, StoredPushConfig } from '../push-store.js';
import { decodeTaskTraceContext } from '../../telemetry/task-trace-context.js';
import { taskStateOf } from './task-rows.js';

/** A `push_configs` row joined with its task's id, seq, state and trace context. */
export interface PushConfigRow {
  readonly task_id: string;
  readonly id: string;
  readonly config: string;
  readonly created_at: number | string;
  readonly delivered_seq: number | string;
  readonly failures: number;
  readonly failing: number | boolean;
  readonly next_attempt_at: number | string;
  readonly last_success_at: number | string | null;
  readonly last_error: string | null;
  readonly last_error_at: number | string | null;
  readonly seq: number | string;
  readonly state: string;
  /** The task's `trace_context` (see `encodeTaskTraceContext`). */
  readonly trace_context: string | null;
}

/**
 * The JSON of the config's wire fields, and of the version it was created with (in the same
 * column, so that remembering it took no change of table).
 */
export function pushConfigJson(config: PushConfigRecord): string {
  const { url, token, authentication, protocolVersion } = config;
  return JSON.stringify({ url, token, authentication, protocolVersion });
}

interface ConfigFields {
  url: string;
  token?: string;
  authentication?: AuthenticationInfo;
  protocolVersion?: string;
}

/** A row as the store seam answers it. */
export function pushConfigFromRow(row: PushConfigRow): StoredPushConfig {
  const fields = JSON.parse(row.config) as ConfigFields;
  const config: PushConfigRecord = {
    taskId: row.task_id,
    id: row.id,
    url: fields.url,
    ...(fields.token === undefined ? {} : { token: fields.token }),
    ...(fields.authentication === undefined ? {} : { authentication: fields.authentication }),
    createdAt: Number(row.created_at),
    ...(fields.protocolVersion === undefined ? {} : { protocolVersion: fields.protocolVersion }),
  };
  const taskTraceContext = decodeTaskTraceContext(row.trace_context);
  return {
    config,
    ...(taskTraceContext === undefined ? {} : { taskTraceContext }),
    state: {
      deliveredSeq: Number(row.delivered_seq),
      failures: row.failures,
      failing: row.failing === true || row.failing === 1,
      nextAttemptAt: Number(row.next_attempt_at),
      ...(row.last_success_at === null ? {} : { lastSuccessAt: Number(row.last_success_at) }),
      ...(row.last_error === null ? {} : { lastError: row.last_error }),
      ...(row.last_error_at === null ? {} : { lastErrorAt: Number(row.last_error_at) }),
    },
    taskSeq: Number(row.seq),
    taskTerminal: isTerminalState(taskStateOf(row)),
  };
}

/**
 * The state columns of an update, in the order the statements bind them. Times are rounded up to
 * whole milliseconds: the columns are integers, and a fraction (a jittered backoff) would make
 * SQLite's strict table and PostgreSQL's bigint refuse the whole update.
 */
export function deliveryUpdateValues(
  update: PushDeliveryUpdate,
): [number, number, number, number, number | null, string | null, number | null] {
  const ms = (time: number | undefined): number | null =>
    time === undefined ? null : Math.ceil(time);
  return [
    update.deliveredSeq,
    update.failures,
    update.failing ? 1 : 0,
    Math.ceil(update.nextAttemptAt),
    ms(update.lastSuccessAt),
    update.lastError ?? null,
    ms(update.lastErrorAt),
  ];
}
