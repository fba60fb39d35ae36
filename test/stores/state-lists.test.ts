/**
 * The SQL stores' partial indexes of active and terminal tasks were written, in released
 * migrations, with the states spelled out; the queries that must use those indexes derive their
 * lists from `protocol/task-state.ts`. Should the protocol's lists ever change, this fails: the
 * indexes then need a new migration, and the released ones must keep their text.
 */

import { describe, expect, it } from 'vitest';
import { ACTIVE_STATES, TERMINAL_STATES } from '../../src/protocol/task-state.js';
import {
  MIGRATED_ACTIVE_STATES_SQL as POSTGRES_ACTIVE,
  MIGRATED_TERMINAL_STATES_SQL as POSTGRES_TERMINAL,
} from '../../src/stores/postgres/postgres-schema.js';
import { sqlStateList } from '../../src/stores/sql/task-rows.js';
import {
  MIGRATED_ACTIVE_STATES_SQL as SQLITE_ACTIVE,
  MIGRATED_TERMINAL_STATES_SQL as SQLITE_TERMINAL,
  SQLITE_MIGRATIONS,
} from '../../src/stores/sqlite/sqlite-migrations.js';

describe('the state lists of the SQL stores', () => {
  it('are the protocol’s, spelled as the released migrations spelled them', () => {
    for (const migrated of [SQLITE_ACTIVE, POSTGRES_ACTIVE]) {
      expect(sqlStateList(ACTIVE_STATES)).toBe(migrated);
    }
    for (const migrated of [SQLITE_TERMINAL, POSTGRES_TERMINAL]) {
      expect(sqlStateList(TERMINAL_STATES)).toBe(migrated);
    }
  });

  it('appear in the SQLite migrations as the partial indexes were created', () => {
    const first = SQLITE_MIGRATIONS[0]?.sql ?? '';
    expect(first).toContain(
      "ON tasks (lease_expires_at) WHERE state IN ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING');",
    );
    expect(first).toContain(
      "ON tasks (status_time) WHERE state IN ('TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED');",
    );
  });
});
