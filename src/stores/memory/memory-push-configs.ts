/**
 * The push configs of a {@link MemoryTaskStore}: a map per task, plus the set of configs that may
 * have pending events, so that finding due deliveries never walks the finished ones.
 */

import type {
  PushConfigPage,
  PushConfigRecord,
  PushDeliveryState,
  PushDeliveryUpdate,
  PutConfigOptions,
  StoredPushConfig,
  TaskPushStore,
} from '../push-store.js';
import { initialDeliveryState } from '../push-store.js';
import type { TaskScope, TaskTraceContext } from '../task-store.js';

/** What the configs need to know of a task. */
export interface MemoryTaskPosition {
  readonly seq: number;
  readonly terminal: boolean;
  readonly traceContext: TaskTraceContext | undefined;
}

/** How the configs reach the store's tasks. */
export interface MemoryTaskLookup {
  /** The task, if visible in `scope`. */
  visible(scope: TaskScope, taskId: string): MemoryTaskPosition | undefined;
  /** The task in any scope. */
  any(taskId: string): MemoryTaskPosition | undefined;
  /** A finished task's configs have received every event (or were deleted): nothing pending. */
  drained(taskId: string): void;
}

interface Entry {
  config: PushConfigRecord;
  state: PushDeliveryState;
  holder: string | undefined;
}

/** Push configs in memory. */
export class MemoryPushConfigs implements TaskPushStore {
  readonly #tasks: MemoryTaskLookup;
  readonly #byTask = new Map<string, Map<string, Entry>>();
  /** Configs whose task may still have undelivered events. */
  readonly #open = new Set<Entry>();

  constructor(tasks: MemoryTaskLookup) {
    this.#tasks = tasks;
  }

  /** Whether a task has a config that has not received all of its events. */
  hasPending(taskId: string, seq: number): boolean {
    const configs = this.#byTask.get(taskId);
    if (configs === undefined) return false;
    for (const entry of configs.values()) if (entry.state.deliveredSeq < seq) return true;
    return false;
  }

  /** Adds the configs of a task being created (checked: distinct ids), from its first event. */
  addForNewTask(taskId: string, configs: readonly PushConfigRecord[]): void {
    if (configs.length === 0) return;
    const byId = new Map<string, Entry>();
    for (const config of configs) {
      const entry: Entry = { config, state: initialDeliveryState(0), holder: undefined };
      byId.set(config.id, entry);
      this.#open.add(entry);
    }
    this.#byTask.set(taskId, byId);
  }

  /** Drops the configs of a deleted task. */
  forgetTask(taskId: string): void {
    const configs = this.#byTask.get(taskId);
    if (configs === undefined) return;
    for (const entry of configs.values()) this.#open.delete(entry);
    this.#byTask.delete(taskId);
  }

  #stored(entry: Entry, position: MemoryTaskPosition): StoredPushConfig {
    return {
      config: entry.config,
      state: entry.state,
      taskSeq: position.seq,
      taskTerminal: position.terminal,
      ...(position.traceContext === undefined ? {} : { taskTraceContext: position.traceContext }),
    };
  }

  putConfig(
    scope: TaskScope,
    config: PushConfigRecord,
    options: PutConfigOptions = {},
  ): Promise<StoredPushConfig | undefined | 'limit-reached'> {
    const task = this.#tasks.visible(scope, config.taskId);
    if (task === undefined) return Promise.resolve(undefined);
    const { fromSeq, maxConfigs } = options;
    let configs = this.#byTask.get(config.taskId);
    const existing = configs?.get(config.id);
    if (existing === undefined && maxConfigs !== undefined && (configs?.size ?? 0) >= maxConfigs) {
      return Promise.resolve('limit-reached');
    }
    if (configs === undefined) {
      configs = new Map();
      this.#byTask.set(config.taskId, configs);
    }
    const entry: Entry =
      existing === undefined
        ? {
            config,
            state: initialDeliveryState(Math.min(fromSeq ?? task.seq, task.seq)),
            holder: undefined,
          }
        : { ...existing, config: { ...config, createdAt: existing.config.createdAt } };
    if (existing !== undefined) this.#open.delete(existing);
    configs.set(config.id, entry);
    this.#open.add(entry);
    return Promise.resolve(this.#stored(entry, task));
  }

  getConfig(scope: TaskScope, taskId: string, id: string): Promise<StoredPushConfig | undefined> {
    const task = this.#tasks.visible(scope, taskId);
    const entry = task === undefined ? undefined : this.#byTask.get(taskId)?.get(id);
    return Promise.resolve(
      entry === undefined || task === undefined ? undefined : this.#stored(entry, task),
    );
  }

  listConfigs(
    scope: TaskScope,
    taskId: string,
    limit: number,
    afterId?: string,
  ): Promise<PushConfigPage | undefined> {
    const task = this.#tasks.visible(scope, taskId);
    if (task === undefined) return Promise.resolve(undefined);
    const ids = [...(this.#byTask.get(taskId)?.keys() ?? [])]
      .filter((id) => afterId === undefined || id > afterId)
      .sort();
    const page = ids.slice(0, limit);
    const configs = page.map((id) =>
      this.#stored(this.#byTask.get(taskId)?.get(id) as Entry, task),
    );
    return Promise.resolve(
      ids.length > limit ? { configs, nextAfterId: page[page.length - 1] as string } : { configs },
    );
  }

  deleteConfig(scope: TaskScope, taskId: string, id: string): Promise<boolean | undefined> {
    if (this.#tasks.visible(scope, taskId) === undefined) return Promise.resolve(undefined);
    const configs = this.#byTask.get(taskId);
    const entry = configs?.get(id);
    if (configs === undefined || entry === undefined) return Promise.resolve(false);
    configs.delete(id);
    this.#open.delete(entry);
    if (configs.size === 0) this.#byTask.delete(taskId);
    this.#checkDrained(taskId);
    return Promise.resolve(true);
  }

  claimDue(holder: string, _leaseMs: number, limit: number): Promise<StoredPushConfig[]> {
    const now = Date.now();
    const due: StoredPushConfig[] = [];
    for (const entry of this.#open) {
      if (due.length >= limit) break;
      const task = this.#tasks.any(entry.config.taskId);
      if (task === undefined) continue;
      if (entry.state.deliveredSeq >= task.seq) {
        // Everything delivered: the config is open again only if its task may still change.
        if (task.terminal) this.#open.delete(entry);
        continue;
      }
      // One process reaches this store: another holder is a predecessor, never a live one.
      if (entry.holder === holder || entry.state.nextAttemptAt > now) continue;
      entry.holder = holder;
      due.push(this.#stored(entry, task));
    }
    return Promise.resolve(due);
  }

  claim(
    holder: string,
    _leaseMs: number,
    taskId: string,
    id: string,
  ): Promise<StoredPushConfig | undefined> {
    const entry = this.#byTask.get(taskId)?.get(id);
    const task = this.#tasks.any(taskId);
    if (entry === undefined || task === undefined) return Promise.resolve(undefined);
    entry.holder = holder;
    this.#open.add(entry);
    return Promise.resolve(this.#stored(entry, task));
  }

  renewClaims(): Promise<void> {
    return Promise.resolve();
  }

  release(holder: string, taskId: string, id: string): Promise<void> {
    const entry = this.#byTask.get(taskId)?.get(id);
    if (entry !== undefined && entry.holder === holder) entry.holder = undefined;
    return Promise.resolve();
  }

  recordDelivery(
    holder: string,
    taskId: string,
    id: string,
    update: PushDeliveryUpdate,
  ): Promise<StoredPushConfig | undefined> {
    const entry = this.#byTask.get(taskId)?.get(id);
    const task = this.#tasks.any(taskId);
    if (entry === undefined || task === undefined || entry.holder !== holder) {
      return Promise.resolve(undefined);
    }
    entry.state = { ...entry.state, ...update };
    if (task.terminal && update.deliveredSeq >= task.seq) this.#checkDrained(taskId);
    return Promise.resolve(this.#stored(entry, task));
  }

  #checkDrained(taskId: string): void {
    const task = this.#tasks.any(taskId);
    if (task !== undefined && task.terminal && !this.hasPending(taskId, task.seq)) {
      this.#tasks.drained(taskId);
    }
  }
}
