/**
 * What `createRequestHandler` is given: the agent, where its tasks live, and the content limits, push
 * notifications and access grants it serves with.
 */

import type { TaskStore } from '../stores/task-store.js';
import type { AgentDefinition } from './agent.js';
import type { Logger } from './logger.js';
import type { PushNotifications } from './push-notifications.js';
import type { TaskContentLimits } from './task-content-limits.js';
import type { TaskAccessPolicy } from './task-access-policy.js';
import type { TaskRuntime } from './task-runtime.js';

/** Options of `createRequestHandler`. */
export interface RequestHandlerOptions {
  readonly agent: AgentDefinition;
  /**
   * The runtime of the store this agent's tasks live in, shared by every agent served from that
   * store (see `createTaskRuntime`). Defaults to a runtime over `store`, started at once and
   * closed with the handler.
   */
  readonly runtime?: TaskRuntime | undefined;
  /**
   * Where tasks live, when no `runtime` is given. `tandem/server`'s `createRequestHandler`
   * defaults it to a new `MemoryTaskStore`.
   */
  readonly store?: TaskStore | undefined;
  /** The namespace of this agent's tasks in a shared store. Defaults to the card's name. */
  readonly agentName?: string | undefined;
  readonly logger?: Logger | undefined;
  /** Live events a stream holds in memory before it catches up from the store. Default 256. */
  readonly streamBufferSize?: number | undefined;
  /**
   * How long a message to an interrupted task waits for the previous execution to return (here,
   * or on the replica holding its lease). Default 5 s.
   */
  readonly resumeWaitMs?: number | undefined;
  /**
   * What one task may hold (artifact bytes, kept history; see `TaskContentLimits`), refused with
   * the limit's name. `{}` applies the defaults; absent, none apply (`tandem serve` turns them on
   * by default). The limits per caller (request rates, open streams, parts per message) are the
   * server's: its `limits` option.
   */
  readonly contentLimits?: TaskContentLimits | undefined;
  /**
   * Push notifications (`createPushNotifications` over the same runtime): the push operations
   * and inline configs work, and the card says `capabilities.pushNotifications: true`. Absent,
   * they answer `PushNotificationNotSupportedError`.
   */
  readonly push?: PushNotifications | undefined;
  /**
   * Grants callers more than their own tasks (see `TaskAccessPolicy`): only reads, only within
   * the caller's tenant. Absent, every caller reads its own tasks only.
   */
  readonly accessPolicy?: TaskAccessPolicy | undefined;
}
