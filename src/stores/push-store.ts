/**
 * The push part of the task store seam: the push notification configs of each task, and where
 * their deliveries stand.
 *
 * The outbox is the task's event log itself. A config records the sequence number of the last
 * event delivered to it (`deliveredSeq`); every event after it, up to the task's `seq`, is a
 * pending delivery. An event therefore becomes pending in the very transaction that appends it
 * (nothing else is written), a crash loses none, and pending deliveries cost no memory and no
 * extra row per event: a delivery worker pages through the log from `deliveredSeq`. A config is
 * created with `deliveredSeq` at the task's seq of that moment (later events only), or at 0 for
 * a config given with the message that creates the task (every event, its first `Task` snapshot
 * included).
 *
 * Configs are scoped like their task (agent, tenant, owner): every operation that a caller makes
 * names its scope, and a task not visible in it is answered as if it did not exist. They are
 * deleted with their task (retention purge).
 *
 * Deliveries of one config are made by one process at a time: a worker claims a config (a lease
 * on a shared store; on an exclusive store only its own process can deliver, so the claim only
 * keeps one worker per config), and records each delivery's outcome conditionally on still
 * holding it.
 */

import type { AuthenticationInfo } from '../protocol/generated/types.js';
import { InvalidTaskWriteError } from '../protocol/local-errors.js';
import type { TaskTraceContext } from '../telemetry/task-trace-context.js';
import type { TaskScope } from './task-scope.js';

/** A push notification config as stored (the wire config without its tenant). */
export interface PushConfigRecord {
  readonly taskId: string;
  readonly id: string;
  readonly url: string;
  readonly token?: string;
  readonly authentication?: AuthenticationInfo;
  /** Epoch ms. */
  readonly createdAt: number;
  /**
   * The `Major.Minor` protocol version of the call that created it, when not 1.0 (`0.3`): its
   * webhook gets that version's payload. Absent: 1.0.
   */
  readonly protocolVersion?: string;
}

/** Where a config's deliveries stand. */
export interface PushDeliveryState {
  /** The seq of the last event delivered (or given up on); later events are pending. */
  readonly deliveredSeq: number;
  /** Consecutive failed attempts since the last success. */
  readonly failures: number;
  /** Marked after too many consecutive failures: attempts slow to a probe. */
  readonly failing: boolean;
  /** Epoch ms before which no attempt is made (a retry's backoff); 0 when due. */
  readonly nextAttemptAt: number;
  readonly lastSuccessAt?: number;
  /** What went wrong with the last failed attempt (no credentials in it). */
  readonly lastError?: string;
  readonly lastErrorAt?: number;
}

/** A config, its delivery state, and the seq its task's log has reached. */
export interface StoredPushConfig {
  readonly config: PushConfigRecord;
  readonly state: PushDeliveryState;
  readonly taskSeq: number;
  /** Whether the task is in a terminal state (no more events will come). */
  readonly taskTerminal: boolean;
  /** The task's originating trace context, when it has one: deliveries are its children. */
  readonly taskTraceContext?: TaskTraceContext;
}

/** One page of a task's configs, in id order. */
export interface PushConfigPage {
  readonly configs: StoredPushConfig[];
  /** The id to continue after; absent on the last page. */
  readonly nextAfterId?: string;
}

/** The change a delivery attempt makes to its config's state. */
export interface PushDeliveryUpdate {
  readonly deliveredSeq: number;
  readonly failures: number;
  readonly failing: boolean;
  readonly nextAttemptAt: number;
  readonly lastSuccessAt?: number;
  readonly lastError?: string;
  readonly lastErrorAt?: number;
}

/** How {@link TaskPushStore.putConfig} stores a config. */
export interface PutConfigOptions {
  /** Where a new config's deliveries start (default: the task's current seq). */
  readonly fromSeq?: number;
  /** The most configs the task may have, this one included (default: no limit). */
  readonly maxConfigs?: number;
}

/** The push configs of a store's tasks: see the module documentation. */
export interface TaskPushStore {
  /**
   * Stores `config` for its task, if the task is visible in `scope`; a config with the same id
   * is replaced (its delivery state kept). Resolves `undefined` when the task is not visible,
   * and `'limit-reached'` — storing nothing — when the config is new and its task already has
   * `options.maxConfigs` configs (counted in the same write, so concurrent creations cannot pass
   * it together).
   */
  putConfig(
    scope: TaskScope,
    config: PushConfigRecord,
    options?: PutConfigOptions,
  ): Promise<StoredPushConfig | undefined | 'limit-reached'>;
  /** A config of a task visible in `scope`, or `undefined`. */
  getConfig(scope: TaskScope, taskId: string, id: string): Promise<StoredPushConfig | undefined>;
  /** Up to `limit` configs of a visible task with ids after `afterId`; `undefined`: no such task. */
  listConfigs(
    scope: TaskScope,
    taskId: string,
    limit: number,
    afterId?: string,
  ): Promise<PushConfigPage | undefined>;
  /**
   * Deletes a config; resolves whether it existed, or `undefined` when the task is not visible.
   * Its pending deliveries are dropped with it.
   */
  deleteConfig(scope: TaskScope, taskId: string, id: string): Promise<boolean | undefined>;
  /**
   * Claims for `holder`, for `leaseMs`, up to `limit` configs that have pending events and are
   * due (`nextAttemptAt <= now`), that `holder` does not hold yet and, on a shared store, that no
   * other live holder holds. Resolves them with their state.
   */
  claimDue(holder: string, leaseMs: number, limit: number): Promise<StoredPushConfig[]>;
  /** Claims one config for `holder` unless another live holder has it; resolves it, or undefined. */
  claim(
    holder: string,
    leaseMs: number,
    taskId: string,
    id: string,
  ): Promise<StoredPushConfig | undefined>;
  /** Extends every claim of `holder` to `leaseMs` from now. */
  renewClaims(holder: string, leaseMs: number): Promise<void>;
  /** Gives up the claim of a config, if `holder` has it. */
  release(holder: string, taskId: string, id: string): Promise<void>;
  /**
   * Records a delivery attempt, if `holder` still holds the config. Resolves the config as it is
   * now (with the task's seq), or `undefined` when the config is gone or the claim was lost.
   */
  recordDelivery(
    holder: string,
    taskId: string,
    id: string,
    update: PushDeliveryUpdate,
  ): Promise<StoredPushConfig | undefined>;
}

/**
 * Why the push configs of a task creation cannot be stored (two with one id), if they cannot:
 * a write that breaks the store contract, refused whole.
 */
export function newTaskConfigsProblem(
  taskId: string,
  configs: readonly PushConfigRecord[],
): InvalidTaskWriteError | undefined {
  const ids = new Set<string>();
  for (const config of configs) {
    if (config.taskId !== taskId || ids.has(config.id)) {
      return new InvalidTaskWriteError(
        `The push configs created with task ${taskId} must be its own and have distinct ids`,
      );
    }
    ids.add(config.id);
  }
  return undefined;
}

/** The state of a config that nothing was delivered to yet. */
export function initialDeliveryState(deliveredSeq: number): PushDeliveryState {
  return { deliveredSeq, failures: 0, failing: false, nextAttemptAt: 0 };
}
