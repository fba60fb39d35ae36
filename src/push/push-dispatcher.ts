/**
 * The delivery side of push notifications in one process: which configs it delivers, and when.
 *
 * - A config is delivered by the worker of the process that claimed it (`TaskPushStore.claim`):
 *   one at a time per config, in order; on PostgreSQL the claim is a lease renewed by this
 *   process, taken over by another replica once it expires (this process died).
 * - A config created here is claimed at once; a worker hears of its task's new events from the
 *   event hub (appends here, and pokes from the change feed for appends elsewhere), so an event
 *   reaches its webhook as soon as it is stored.
 * - A scan every `scanMs` claims what no live process is delivering: configs left by a crash or
 *   a dead replica, retries that became due, configs created on other replicas. It asks for at
 *   most the free room (`maxWorkers` minus the workers held), so memory stays bounded however
 *   many deliveries are pending, and pending deliveries survive a restart: they are claimed by
 *   the first scan after start-up.
 * - Workers are independent: a slow or dead webhook holds its own worker only (and after too
 *   many failures is only probed), never another config's or another task's.
 */

import type { Logger } from '../runtime/logger.js';
import type { TaskEventHub } from '../runtime/task-event-hub.js';
import type { StoredPushConfig, TaskPushStore } from '../stores/push-store.js';
import type { TaskStore } from '../stores/task-store.js';
import { ConfigWorker, type WorkerContext } from './config-worker.js';

/** How a dispatcher works. */
export interface DispatcherOptions {
  readonly store: TaskStore;
  readonly push: TaskPushStore;
  readonly hub: TaskEventHub;
  readonly holder: string;
  readonly logger: Logger;
  readonly worker: Omit<
    WorkerContext,
    'onDone' | 'store' | 'push' | 'holder' | 'logger' | 'stopped'
  >;
  readonly scanMs: number;
  readonly leaseMs: number;
  readonly maxWorkers: number;
}

interface TaskWatch {
  readonly workers: Set<ConfigWorker>;
  readonly unsubscribe: () => void;
}

/** See the module documentation. */
export class PushDispatcher {
  readonly #options: DispatcherOptions;
  readonly #context: WorkerContext;
  readonly #workers = new Map<string, ConfigWorker>();
  readonly #tasks = new Map<string, TaskWatch>();
  #scanTimer: NodeJS.Timeout | undefined;
  #renewTimer: NodeJS.Timeout | undefined;
  #scanning: Promise<void> | undefined;
  #closed = false;
  readonly #stop = new AbortController();

  constructor(options: DispatcherOptions) {
    this.#options = options;
    this.#context = {
      ...options.worker,
      store: options.store,
      push: options.push,
      holder: options.holder,
      logger: options.logger,
      stopped: this.#stop.signal,
      onDone: (worker, release) => this.#done(worker, release),
    };
  }

  /** Starts scanning (at once, then every `scanMs`) and renewing claims. */
  start(): void {
    const { scanMs, leaseMs } = this.#options;
    this.scan();
    this.#scanTimer = setInterval(() => this.scan(), scanMs);
    this.#scanTimer.unref();
    this.#renewTimer = setInterval(() => this.#renew(), Math.max(50, Math.floor(leaseMs / 3)));
    this.#renewTimer.unref();
  }

  /** Number of configs this process is delivering. */
  get workerCount(): number {
    return this.#workers.size;
  }

  /** Claims what is due now (also called by the timer); one scan at a time. */
  scan(): void {
    if (this.#closed || this.#scanning !== undefined) return;
    if (this.#workers.size >= this.#options.maxWorkers) this.#evictIdle();
    const room = this.#options.maxWorkers - this.#workers.size;
    if (room <= 0) return;
    const { push, holder, leaseMs } = this.#options;
    this.#scanning = push
      .claimDue(holder, leaseMs, Math.min(room, 500))
      .then((claimed) => {
        for (const stored of claimed) this.#adopt(stored);
      })
      .catch((error: unknown) => {
        this.#options.logger.error({ err: error }, 'push delivery scan failed; retrying');
      })
      .finally(() => (this.#scanning = undefined));
  }

  /**
   * At capacity, gives back the configs that are caught up (their task waits, e.g. for input),
   * so that configs with pending deliveries get a worker: a given-back config is claimed again
   * by a scan once its task has new events.
   */
  #evictIdle(): void {
    let evicted = 0;
    for (const worker of [...this.#workers.values()]) {
      if (evicted >= EVICT_BATCH) break;
      if (!worker.idle) continue;
      void worker.close();
      this.#done(worker, true);
      evicted++;
    }
  }

  /** Claims a config (just created here) and starts delivering it. */
  async claim(taskId: string, id: string): Promise<void> {
    if (this.#closed || this.#workers.has(keyOf(taskId, id))) return;
    if (this.#workers.size >= this.#options.maxWorkers) return; // the scan gets to it
    const { push, holder, leaseMs } = this.#options;
    const stored = await push.claim(holder, leaseMs, taskId, id);
    if (stored !== undefined) this.#adopt(stored);
  }

  /** Stops delivering a config deleted here (its claim went with it). */
  forget(taskId: string, id: string): void {
    const worker = this.#workers.get(keyOf(taskId, id));
    if (worker !== undefined) {
      void worker.close();
      this.#done(worker, false);
    }
  }

  #adopt(stored: StoredPushConfig): void {
    const { taskId, id } = stored.config;
    const key = keyOf(taskId, id);
    if (this.#closed || this.#workers.has(key)) return;
    const worker = new ConfigWorker(this.#context, stored);
    this.#workers.set(key, worker);
    let watch = this.#tasks.get(taskId);
    if (watch === undefined) {
      const workers = new Set<ConfigWorker>();
      const unsubscribe = this.#options.hub.subscribe(taskId, {
        onEvent: (event) => {
          for (const w of workers) w.wake(event.seq);
        },
        onPoke: (seq) => {
          for (const w of workers) w.wake(seq);
        },
      });
      watch = { workers, unsubscribe };
      this.#tasks.set(taskId, watch);
    }
    watch.workers.add(worker);
    worker.wake();
  }

  #done(worker: ConfigWorker, release: boolean): void {
    const key = keyOf(worker.taskId, worker.id);
    if (this.#workers.get(key) !== worker) return;
    this.#workers.delete(key);
    const watch = this.#tasks.get(worker.taskId);
    if (watch !== undefined) {
      watch.workers.delete(worker);
      if (watch.workers.size === 0) {
        watch.unsubscribe();
        this.#tasks.delete(worker.taskId);
      }
    }
    if (release) {
      const { push, holder, logger } = this.#options;
      push.release(holder, worker.taskId, worker.id).catch((error: unknown) => {
        logger.warn({ err: error, taskId: worker.taskId }, 'push claim release failed; it expires');
      });
    }
  }

  #renew(): void {
    if (this.#closed || this.#workers.size === 0) return;
    const { push, holder, leaseMs, logger } = this.#options;
    push.renewClaims(holder, leaseMs).catch((error: unknown) => {
      logger.warn({ err: error }, 'push claim renewal failed; retrying');
    });
  }

  /**
   * Stops: attempts in flight are abandoned (their events stay pending: delivered again, with the
   * same delivery ids, by the next process to claim them) and claims are given back.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stop.abort();
    clearInterval(this.#scanTimer);
    clearInterval(this.#renewTimer);
    await this.#scanning;
    const workers = [...this.#workers.values()];
    await Promise.all(workers.map((worker) => worker.close()));
    const { push, holder } = this.#options;
    await Promise.allSettled(workers.map((w) => push.release(holder, w.taskId, w.id)));
    for (const watch of this.#tasks.values()) watch.unsubscribe();
    this.#tasks.clear();
    this.#workers.clear();
  }
}

/** Idle workers given back per scan at capacity. */
const EVICT_BATCH = 100;

function keyOf(taskId: string, id: string): string {
  return `${taskId}\u0000${id}`;
}
