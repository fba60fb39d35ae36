/**
 * A {@link TaskStore} on PostgreSQL, for several replicas of one agent sharing their tasks: any
 * replica reads, lists, appends to, cancels and tails any task, and learns of the others' writes
 * through `LISTEN`/`NOTIFY` on the same database — no broker besides PostgreSQL.
 *
 * Guarantees the runtime relies on:
 * - An append is atomic (log, projection, notification) and conditional on the task's seq: of two
 *   replicas appending on the same seq, exactly one wins; the other gets `{ ok: false }`.
 * - Writes are group-committed (`postgres-write-queue.ts`): those called while earlier ones are
 *   in flight share one statement and one commit, across tasks and within a task, and each
 *   promise settles only once its commit is known. Appends may be pipelined: called one after
 *   another without waiting, they are applied in call order, and one that continues a write
 *   refused or failed is refused or failed with it.
 * - Appending an artifact chunk inserts the chunk's rows and updates the task row; it never
 *   rewrites the artifact or the task (cost O(chunk)).
 * - Reads see one snapshot; listing is a keyset page pushed down to an index.
 * - Lease expiry is measured on the database clock (see `postgres-leases.ts`).
 * - The schema is created and migrated on open; a schema newer than this code is refused with a
 *   `ConfigurationError`.
 */

import { randomBytes } from 'node:crypto';
import { Pool, type QueryConfig } from 'pg';
import { asError, ConfigurationError } from '../../protocol/local-errors.js';
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
import { EndedLeases, postgresLeases } from './postgres-leases.js';
import { postgresPushConfigs } from './postgres-push-configs.js';
import { newTaskConfigsProblem, type TaskPushStore } from '../push-store.js';
import * as reads from './postgres-reads.js';
import { postgresRetention } from './postgres-retention.js';
import { migrateSchema } from './postgres-schema.js';
import { checkTaskId } from './postgres-task-write.js';
import { PostgresWriteQueue } from './postgres-write-queue.js';
import { createEventsProblem, lastSeqOf, statusTimeOf } from '../task-log.js';

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
  /**
   * Maximum pooled connections (the change listener uses one more, of its own). Default
   * {@link DEFAULT_POOL_SIZE}. Write batches use at most half of them at once; reads the rest.
   */
  readonly poolSize?: number;
  /**
   * Where the change listener connects, when not to `connectionString`: behind a pooler in
   * transaction mode (PgBouncer), whose connections cannot keep a `LISTEN`, give the database
   * itself (or a session-mode pool) here.
   */
  readonly listenConnectionString?: string;
  /**
   * Named (prepared) statements: planned once per connection, the default. A pooler in
   * transaction mode that does not track prepared statements (PgBouncer before 1.21, or without
   * `max_prepared_statements`) hands a later statement to another server connection that never
   * prepared it: turn them off there. Default: on, off when `listenConnectionString` is given.
   */
  readonly preparedStatements?: boolean;
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

/** Pooled connections by default: enough for batches in flight beside the reads of a replica. */
export const DEFAULT_POOL_SIZE = 10;

/** Writes in one batch at most (a bound on the statement's size, not a target). */
const MAX_BATCH_WRITES = 512;

/** Takes the names out of named statements, for connections that cannot keep prepared ones. */
function unnamedQueries(client: { query: (...args: unknown[]) => unknown }): void {
  const query = client.query.bind(client);
  client.query = (config: unknown, ...rest: unknown[]): unknown => {
    if (typeof config === 'object' && config !== null && 'name' in config) {
      const { name: _name, ...unnamed } = config as QueryConfig;
      return query(unnamed, ...rest);
    }
    return query(config, ...rest);
  };
}

/** The PostgreSQL task store. Create it with {@link PostgresTaskStore.open}. */
export class PostgresTaskStore implements TaskStore {
  /** Replicas share the schema: each runs some of its tasks. */
  readonly topology = 'shared';
  /**
   * Writes are queued in call order and batched (see `postgres-write-queue.ts`); an append that
   * continues one refused because another replica wrote in between is refused with it.
   */
  readonly pipelinedAppends = true;
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
  readonly #writes: PostgresWriteQueue;
  #closing: Promise<void> | undefined;

  private constructor(
    db: PostgresDatabase,
    listener: PostgresChangeListener,
    writes: PostgresWriteQueue,
    ended: EndedLeases,
  ) {
    this.#db = db;
    this.#listener = listener;
    this.#writes = writes;
    this.leases = postgresLeases(db, ended);
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
    const poolSize = integerOption(
      'poolSize',
      options.poolSize ?? DEFAULT_POOL_SIZE,
      1,
      'connections',
    );
    const reconnectMinMs = integerOption('reconnectMinMs', options.reconnectMinMs ?? 100, 1, 'ms');
    const reconnectMaxMs = integerOption(
      'reconnectMaxMs',
      options.reconnectMaxMs ?? 10_000,
      1,
      'ms',
    );
    const onError = options.onError ?? ignoreError;
    const { connectionString } = options;
    const listenConnectionString = options.listenConnectionString ?? connectionString;
    const prepared = options.preparedStatements ?? options.listenConnectionString === undefined;
    const pool = new Pool({ connectionString, max: poolSize, application_name: 'tandem' });
    // An idle client that errors is already removed by the pool; without a handler the
    // emitter would throw and end the process.
    pool.on('error', onError);
    if (!prepared) pool.on('connect', (client) => unnamedQueries(client as never));
    const db: PostgresDatabase = { pool, names, onError };
    try {
      await migrateSchema(db);
    } catch (error) {
      await pool.end();
      throw error;
    }
    const storeId = randomBytes(6).toString('base64url');
    const ended = new EndedLeases();
    const writes = new PostgresWriteQueue(db, {
      maxInFlight: Math.max(1, Math.floor(poolSize / 2)),
      maxBatchWrites: MAX_BATCH_WRITES,
      prepared,
      storeId,
      onTerminal: (taskId) => ended.ended(taskId),
    });
    const listener = new PostgresChangeListener({
      client: {
        connectionString: listenConnectionString,
        application_name: 'tandem-listener',
        keepAlive: true,
      },
      channel: names.channel,
      onError,
      reconnectMinMs,
      reconnectMaxMs: Math.max(reconnectMinMs, reconnectMaxMs),
      ownBatches: { storeId, afterBatch: (batch, deliver) => writes.afterBatch(batch, deliver) },
    });
    return new PostgresTaskStore(db, listener, writes, ended);
  }

  createTask(request: CreateTaskRequest): Promise<void> {
    try {
      checkCreation(request);
    } catch (error) {
      return Promise.reject(asError(error));
    }
    return this.#writes.create(request);
  }

  append(request: AppendRequest): Promise<AppendResult> {
    let seq: number;
    try {
      checkTaskId(request.taskId);
      seq = lastSeqOf(request.expectedSeq, request.events);
      for (const mutation of request.mutations) {
        if (mutation.kind === 'status') statusTimeOf(mutation.status);
      }
    } catch (error) {
      return Promise.reject(asError(error));
    }
    return this.#writes.append(request, seq);
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

  /**
   * Lets the writes already queued commit, then closes the change listener's connection and the
   * pool; later writes reject with a `UsageError`. Calling it again is harmless.
   */
  close(): Promise<void> {
    this.#closing ??= this.#writes
      .close()
      .then(() => this.#listener.close())
      .finally(() => this.#db.pool.end());
    return this.#closing;
  }
}

/** Throws `InvalidTaskWriteError` for a creation no store may write. */
function checkCreation(request: CreateTaskRequest): void {
  const { task } = request;
  checkTaskId(task.id);
  const problem =
    createEventsProblem(request.events) ??
    (request.pushConfigs === undefined
      ? undefined
      : newTaskConfigsProblem(task.id, request.pushConfigs));
  if (problem !== undefined) throw problem;
  statusTimeOf(task.status);
}
