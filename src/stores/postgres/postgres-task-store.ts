/**
 * A {@link TaskStore} on PostgreSQL, for several replicas of one agent sharing their tasks: any
 * replica reads, lists, appends to, cancels and tails any task, and learns of the others' writes
 * through `LISTEN`/`NOTIFY` on the same database — no broker besides PostgreSQL.
 *
 * Guarantees the runtime relies on:
 * - An append is atomic (log, projection, notification) and conditional on the task's seq: of two
 *   replicas appending on the same seq, exactly one wins; the other gets `{ ok: false }`.
 * - Appending an artifact chunk inserts the chunk's rows and updates the task row; it never
 *   rewrites the artifact or the task (cost O(chunk)).
 * - Reads see one snapshot; listing is a keyset page pushed down to an index.
 * - Lease expiry is measured on the database clock (see `postgres-leases.ts`).
 * - The schema is created and migrated on open; a schema newer than this code is refused with a
 *   `ConfigurationError`.
 */

import { Pool } from 'pg';
import { ConfigurationError } from '../../protocol/local-errors.js';
import { integerOption } from '../../protocol/integer-option.js';
import type {
  AppendRequest,
  AppendResult,
  CreateTaskRequest,
  StoredTask,
  TaskChangeFeed,
  TaskLeases,
  TaskListPage,
  TaskListQuery,
  TaskLogEntry,
  TaskRetention,
  TaskReadScope,
  TaskStore,
  TaskViewOptions,
} from '../task-store.js';
import { PostgresChangeListener } from './postgres-change-listener.js';
import {
  postgresNames,
  type PostgresDatabase,
  type PostgresErrorHandler,
} from './postgres-database.js';
import { postgresLeases } from './postgres-leases.js';
import { postgresPushConfigs } from './postgres-push-configs.js';
import type { TaskPushStore } from '../push-store.js';
import * as reads from './postgres-reads.js';
import { postgresRetention } from './postgres-retention.js';
import { migrateSchema } from './postgres-schema.js';
import * as writes from './postgres-writes.js';

/** Where the store lives and how it connects. */
export interface PostgresTaskStoreOptions {
  /** A libpq connection URI, e.g. `postgres://tandem@db.internal:5432/tandem`. */
  readonly connectionString: string;
  /**
   * The schema holding the store's tables; created if missing. Replicas that share tasks use the
   * same schema; distinct schemas in one database are fully isolated (channel included). Default
   * `tandem`.
   */
  readonly schema?: string;
  /** Maximum pooled connections (the change listener uses one more). Default 10. */
  readonly poolSize?: number;
  /**
   * Receives errors the store recovers from by itself: an idle pooled connection dropping, the
   * change listener's connection dropping or failing to reconnect, a listener throwing. Without
   * it they are dropped: the store has already recovered, and an operation that fails still
   * rejects to its caller.
   */
  readonly onError?: PostgresErrorHandler;
  /** First delay before the change listener reconnects, doubling per attempt. Default 100 ms. */
  readonly reconnectMinMs?: number;
  /** Longest delay between reconnection attempts. Default 10 s. */
  readonly reconnectMaxMs?: number;
}

const ignoreError: PostgresErrorHandler = () => {};

/** The PostgreSQL task store. Create it with {@link PostgresTaskStore.open}. */
export class PostgresTaskStore implements TaskStore {
  /** Replicas share the schema: each runs some of its tasks. */
  readonly topology = 'shared';
  /** Each append waits for the one before: another replica may have written in between. */
  readonly pipelinedAppends = false;
  /** Lease expiry is measured on the database clock (see `postgres-leases.ts`). */
  readonly leases: TaskLeases;
  readonly retention: TaskRetention;
  /**
   * Hears every append committed to this schema — by any replica, this one included — as
   * `(taskId, seq)`. `listen` resolves once listening, so writes committed afterwards are
   * delivered. All listeners share one connection.
   */
  readonly changeFeed: TaskChangeFeed;
  /** Push configs, claimed by one replica at a time (leases on the database clock). */
  readonly push: TaskPushStore;
  readonly #db: PostgresDatabase;
  readonly #listener: PostgresChangeListener;
  #closing: Promise<void> | undefined;

  private constructor(db: PostgresDatabase, listener: PostgresChangeListener) {
    this.#db = db;
    this.#listener = listener;
    this.leases = postgresLeases(db);
    this.retention = postgresRetention(db);
    this.push = postgresPushConfigs(db);
    this.changeFeed = { listen: (changes) => listener.add(changes) };
  }

  /**
   * Connects, creates or migrates the schema, and resolves to a ready store. Rejects with
   * `ConfigurationError` for invalid options or a schema migrated by a newer Tandem, and with
   * the driver's error when the database cannot be reached; nothing stays open after a
   * rejection.
   */
  static async open(options: PostgresTaskStoreOptions): Promise<PostgresTaskStore> {
    if (options.connectionString.trim() === '') {
      throw new ConfigurationError(
        'PostgresTaskStore needs a connectionString, e.g. postgres://user@host:5432/database',
      );
    }
    const names = postgresNames(options.schema ?? 'tandem');
    const poolSize = integerOption('poolSize', options.poolSize ?? 10, 1, 'connections');
    const reconnectMinMs = integerOption('reconnectMinMs', options.reconnectMinMs ?? 100, 1, 'ms');
    const reconnectMaxMs = integerOption(
      'reconnectMaxMs',
      options.reconnectMaxMs ?? 10_000,
      1,
      'ms',
    );
    const onError = options.onError ?? ignoreError;
    const { connectionString } = options;
    const pool = new Pool({ connectionString, max: poolSize, application_name: 'tandem' });
    // An idle client that errors is already removed by the pool; without a handler the
    // emitter would throw and end the process.
    pool.on('error', onError);
    const db: PostgresDatabase = { pool, names, onError };
    try {
      await migrateSchema(db);
    } catch (error) {
      await pool.end();
      throw error;
    }
    const listener = new PostgresChangeListener({
      client: { connectionString, application_name: 'tandem-listener', keepAlive: true },
      channel: names.channel,
      onError,
      reconnectMinMs,
      reconnectMaxMs: Math.max(reconnectMinMs, reconnectMaxMs),
    });
    return new PostgresTaskStore(db, listener);
  }

  createTask(request: CreateTaskRequest): Promise<void> {
    return writes.createTask(this.#db, request);
  }

  append(request: AppendRequest): Promise<AppendResult> {
    return writes.appendToTask(this.#db, request);
  }

  getTask(
    scope: TaskReadScope,
    taskId: string,
    view?: TaskViewOptions,
  ): Promise<StoredTask | undefined> {
    return reads.getTask(this.#db, scope, taskId, view);
  }

  listTasks(scope: TaskReadScope, query: TaskListQuery): Promise<TaskListPage> {
    return reads.listTasks(this.#db, scope, query);
  }

  readEvents(taskId: string, afterSeq: number, limit: number): Promise<TaskLogEntry[] | undefined> {
    return reads.readEvents(this.#db, taskId, afterSeq, limit);
  }

  /** Closes the change listener's connection and the pool. Calling it again is harmless. */
  close(): Promise<void> {
    this.#closing ??= this.#listener.close().finally(() => this.#db.pool.end());
    return this.#closing;
  }
}
