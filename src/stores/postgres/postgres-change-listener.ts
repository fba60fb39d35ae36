/**
 * Cross-replica wake-ups over PostgreSQL itself: every batch of writes `pg_notify`s, inside its
 * statement (delivered on commit, in commit order), the ids of the tasks it wrote with the seq
 * each reached — `{"s":<store>,"b":<batch>,"c":[[taskId,seq],...]}`, one notification per batch
 * unless it does not fit the payload limit — and this class holds the one connection that
 * `LISTEN`s for them and fans each out to the process's listeners. A notification is only a
 * pointer; readers fetch the events from the log, after the seq they hold, so a reader that
 * fell behind reads what it missed and never an event twice. The store's own batches are handed
 * on once their writers have published them (`ownBatch`), so that its own streams do not read
 * back what they are about to receive anyway. (`taskId:seq`, the payload of stores before
 * batching, is still understood during a rolling upgrade.)
 *
 * The connection is dedicated (a pooled connection would be handed to queries and lose its
 * `LISTEN`), opened with the first listener and closed with the last. When it drops it is
 * reopened with exponential backoff and jitter (replicas do not reconnect in lockstep);
 * notifications sent while it was down are lost, as PostgreSQL does not queue them for a
 * session that is gone, so listeners are told to resync from the store once it is back.
 */

import { Client, escapeIdentifier, type ClientConfig, type Notification } from 'pg';
import { asError, StorageError, UsageError } from '../../protocol/local-errors.js';
import type { TaskChangeListener } from '../task-store.js';
import type { PostgresErrorHandler } from './postgres-database.js';

/** How the listening connection is opened and where its troubles are reported. */
export interface PostgresChangeListenerOptions {
  readonly client: ClientConfig;
  readonly channel: string;
  /** Receives connection losses, failed reconnections, malformed payloads, throwing listeners. */
  readonly onError: PostgresErrorHandler;
  /** First delay before reconnecting; doubles per failed attempt. */
  readonly reconnectMinMs: number;
  readonly reconnectMaxMs: number;
  /** This store's own announcements: their store id, and where they wait for their batch. */
  readonly ownBatches?: {
    readonly storeId: string;
    afterBatch(batch: number, deliver: () => void): void;
  };
}

/** An announcement as sent by a batch. */
interface Announcement {
  readonly s: string;
  readonly b: number;
  readonly c: readonly (readonly [string, number])[];
}

function isAnnouncement(value: unknown): value is Announcement {
  if (typeof value !== 'object' || value === null) return false;
  const { s, b, c } = value as Partial<Announcement>;
  return (
    typeof s === 'string' &&
    typeof b === 'number' &&
    Array.isArray(c) &&
    c.every(
      (change) =>
        Array.isArray(change) &&
        typeof change[0] === 'string' &&
        Number.isSafeInteger(change[1]) &&
        change[1] >= 1,
    )
  );
}

const ignore = (): void => {};

/** One `LISTEN` connection shared by every change listener of a store. */
export class PostgresChangeListener {
  readonly #options: PostgresChangeListenerOptions;
  readonly #listeners = new Set<TaskChangeListener>();
  #client: Client | undefined;
  /** Connection changes happen one at a time, in call order. */
  #queue: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  #attempt = 0;
  #closed = false;
  /** The connection dropped since listeners were added: the next connection must resync them. */
  #missedSome = false;

  constructor(options: PostgresChangeListenerOptions) {
    this.#options = options;
  }

  /**
   * Adds a listener; resolves once the channel is listened to, so that any write committed
   * afterwards reaches it. Resolves to the function that removes it (and closes the connection
   * when it was the last).
   */
  async add(listener: TaskChangeListener): Promise<() => Promise<void>> {
    if (this.#closed) throw new UsageError('changeFeed.listen was called on a closed store');
    this.#listeners.add(listener);
    try {
      await this.#serially(() => this.#ensureConnected());
    } catch (error) {
      this.#listeners.delete(listener);
      // Listeners added earlier lost their connection with this attempt: keep trying for them.
      this.#scheduleReconnect();
      throw error;
    }
    let removed = false;
    return () => {
      if (removed) return Promise.resolve();
      removed = true;
      this.#listeners.delete(listener);
      return this.#serially(() =>
        this.#listeners.size === 0 ? this.#disconnect() : Promise.resolve(),
      );
    };
  }

  /** Removes every listener and closes the connection; no reconnection happens after. */
  close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#listeners.clear();
    return this.#serially(() => this.#disconnect());
  }

  #serially(operation: () => Promise<void>): Promise<void> {
    const result = this.#queue.then(operation);
    // The queue goes on after a failure; the failure itself reaches the caller through `result`.
    this.#queue = result.then(ignore, ignore);
    return result;
  }

  async #ensureConnected(): Promise<void> {
    if (this.#client !== undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const client = new Client(this.#options.client);
    client.on('notification', (message) => this.#dispatch(message));
    client.on('error', (error) => this.#dropped(client, error));
    client.on('end', () => this.#dropped(client, undefined));
    try {
      await client.connect();
      await client.query(`LISTEN ${escapeIdentifier(this.#options.channel)}`);
    } catch (error) {
      await client.end().catch((endError: unknown) => this.#options.onError(asError(endError)));
      throw error;
    }
    this.#client = client;
    this.#attempt = 0;
    if (this.#missedSome) {
      this.#missedSome = false;
      this.#each((listener) => listener.onResync());
    }
  }

  #each(call: (listener: TaskChangeListener) => void): void {
    for (const listener of [...this.#listeners]) {
      try {
        call(listener);
      } catch (error) {
        this.#options.onError(asError(error));
      }
    }
  }

  async #disconnect(): Promise<void> {
    const client = this.#client;
    if (client === undefined) return;
    this.#client = undefined;
    try {
      await client.query(`UNLISTEN ${escapeIdentifier(this.#options.channel)}`);
    } finally {
      await client.end();
    }
  }

  /** The connection reported an error or ended: report, forget it, and reconnect if needed. */
  #dropped(client: Client, error: Error | undefined): void {
    if (error !== undefined) this.#options.onError(error);
    if (client !== this.#client) return;
    this.#client = undefined;
    this.#missedSome = true;
    client.end().catch((endError: unknown) => this.#options.onError(asError(endError)));
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#listeners.size === 0 || this.#timer !== undefined) return;
    const { reconnectMinMs, reconnectMaxMs } = this.#options;
    const backoff = Math.min(reconnectMaxMs, reconnectMinMs * 2 ** this.#attempt);
    this.#attempt++;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        void this.#serially(async () => {
          if (this.#closed || this.#listeners.size === 0) return;
          try {
            await this.#ensureConnected();
          } catch (error) {
            this.#options.onError(asError(error));
            this.#scheduleReconnect();
          }
        });
      },
      backoff * (0.5 + Math.random() / 2),
    );
    // A pending reconnection alone does not keep the process alive.
    this.#timer.unref();
  }

  #dispatch(message: Notification): void {
    if (message.channel !== this.#options.channel) return;
    const payload = message.payload ?? '';
    const changes = payload.startsWith('{') ? this.#announcement(payload) : this.#pointer(payload);
    if (changes === undefined) {
      this.#options.onError(
        new StorageError(
          `Malformed notification "${payload.slice(0, 200)}" on channel ${message.channel}; ignored`,
        ),
      );
      return;
    }
    const deliver = (): void => {
      for (const [taskId, seq] of changes.c) {
        this.#each((listener) => listener.onChange(taskId, seq));
      }
    };
    const own = this.#options.ownBatches;
    if (own !== undefined && changes.s === own.storeId) own.afterBatch(changes.b, deliver);
    else deliver();
  }

  #announcement(payload: string): Announcement | undefined {
    try {
      const parsed: unknown = JSON.parse(payload);
      return isAnnouncement(parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  }

  /** `taskId:seq`, as stores before batching announced each write. */
  #pointer(payload: string): Announcement | undefined {
    const colon = payload.lastIndexOf(':');
    const seq = Number(payload.slice(colon + 1));
    if (colon <= 0 || !Number.isSafeInteger(seq) || seq < 1) return undefined;
    return { s: '', b: 0, c: [[payload.slice(0, colon), seq]] };
  }
}
