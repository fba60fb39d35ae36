/**
 * Push notifications over one task runtime: the operations (configs in the runtime's store,
 * scoped to each caller), the destination guard, and this process's delivery dispatcher.
 *
 * ```ts
 * const runtime = createTaskRuntime({ store });
 * await runtime.start();
 * const push = createPushNotifier({ runtime });
 * const handler = createRequestHandler({ agent, runtime, push });
 * // ... at shutdown, after the handlers:
 * await push.close();
 * ```
 */

import {
  InvalidParamsError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '../protocol/errors.js';
import type {
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  TaskPushNotificationConfig,
} from '../protocol/generated/types.js';
import { ConfigurationError } from '../protocol/local-errors.js';
import { integerOption } from '../protocol/integer-option.js';
import { newUuid } from '../protocol/uuid.js';
import type { Logger } from '../runtime/logger.js';
import type {
  PushDeliveryStatus,
  PushNotifications,
  PushPayloadFormat,
} from '../runtime/push-notifications.js';
import { engineOf, type TaskRuntime } from '../runtime/task-runtime.js';
import type { PushConfigRecord, StoredPushConfig, TaskPushStore } from '../stores/push-store.js';
import type { TaskScope } from '../stores/task-store.js';
import { DestinationPolicy } from './destination-policy.js';
import { systemResolver, type HostResolver } from './guarded-lookup.js';
import { checkPushConfig } from './push-config-input.js';
import { PushDispatcher } from './push-dispatcher.js';
import { decodeConfigPageToken, encodeConfigPageToken } from './config-page-token.js';
import type { RetryTiming } from './retry-timing.js';

/** Options of {@link createPushNotifier}. */
export interface PushNotifierOptions {
  /** The runtime whose store keeps the configs, and whose event hub announces new events. */
  readonly runtime: TaskRuntime;
  /**
   * Destinations admitted although private or local: host names (exactly), addresses (exactly)
   * or CIDR ranges. Default none: see `destination-policy.ts` for what is refused.
   */
  readonly allow?: readonly string[] | undefined;
  /** How long a webhook has to answer: 10,000 to 30,000 ms (spec 4.3.3). Default 15,000. */
  readonly timeoutMs?: number | undefined;
  /** Retry pacing: defaults base 1 s, max 5 min, failing after 10 failures, probe every 5 min. */
  readonly retry?: Partial<RetryTiming> | undefined;
  /** Deliver only `task` snapshots and status updates. Default false. */
  readonly statusOnly?: boolean | undefined;
  /** Send consecutive chunks of one artifact as one `artifactUpdate`. Default false. */
  readonly coalesceArtifacts?: boolean | undefined;
  /** How host names are resolved (default: the system resolver). */
  readonly resolver?: HostResolver | undefined;
  /** How often to look for deliveries no process is making. Default 1,000 ms. */
  readonly scanMs?: number | undefined;
  /** How long a claim on a config lasts without renewal (shared stores). Default 10,000 ms. */
  readonly leaseMs?: number | undefined;
  /**
   * The most push configs one task may have (spec 13.4: limits on resource use); creating one
   * more answers `UnsupportedOperationError` naming the limit and stores nothing, while replacing
   * a config by its id always works. Default 10.
   */
  readonly maxConfigsPerTask?: number | undefined;
  /** Configs delivered at once by this process. Default 10,000. */
  readonly maxWorkers?: number | undefined;
  /**
   * The server's compat layer (`compatV03()` of `tandem/server/compat`), whose clients' configs
   * get their version's payload (0.3: the Task object, 0.3 §9.5). Without it, a config created
   * over 0.3 is refused, rather than posting 1.0 payloads that a 0.3 webhook cannot read.
   */
  readonly compat?: { readonly pushPayloads?: PushPayloadFormat | undefined } | undefined;
  readonly logger?: Logger | undefined;
}

export type { PushDeliveryStatus } from '../runtime/push-notifications.js';

/** Push notifications for the handlers of one runtime; close it at shutdown. */
export interface PushNotifier extends PushNotifications {
  /** Stops delivering; pending deliveries stay in the store for the next start or replica. */
  close(): Promise<void>;
}

const DEFAULT_PAGE = 50;
const DEFAULT_MAX_CONFIGS = 10;
const MAX_PAGE = 100;

/** Creates the push notifications of `options.runtime` and starts delivering. */
export function createPushNotifier(options: PushNotifierOptions): PushNotifier {
  return new RuntimePushNotifier(options);
}

class RuntimePushNotifier implements PushNotifier {
  readonly #push: TaskPushStore;
  readonly #policy: DestinationPolicy;
  readonly #resolver: HostResolver;
  readonly #dispatcher: PushDispatcher;
  readonly #maxConfigs: number;
  readonly #logger: Logger;
  readonly #formats: ReadonlyMap<string, PushPayloadFormat>;

  constructor(options: PushNotifierOptions) {
    const engine = engineOf(options.runtime);
    const push = engine.store.push;
    if (push === undefined) {
      throw new ConfigurationError('This task store cannot keep push notification configs');
    }
    this.#push = push;
    this.#policy = new DestinationPolicy(options.allow ?? []);
    this.#resolver = options.resolver ?? systemResolver;
    const timeoutMs = options.timeoutMs ?? 15_000;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 10_000 || timeoutMs > 30_000) {
      throw new ConfigurationError(
        `The push timeout must be 10,000 to 30,000 ms (spec 4.3.3), got ${timeoutMs}`,
      );
    }
    const logger = (options.logger ?? engine.logger).child({ component: 'push' });
    this.#logger = logger;
    this.#maxConfigs = integerOption(
      'maxConfigsPerTask',
      options.maxConfigsPerTask ?? DEFAULT_MAX_CONFIGS,
      1,
    );
    const retry = options.retry ?? {};
    const format = options.compat?.pushPayloads;
    this.#formats = new Map(format === undefined ? [] : [[format.protocolVersion, format]]);
    this.#dispatcher = new PushDispatcher({
      store: engine.store,
      push,
      hub: engine.hub,
      holder: `push-${newUuid()}`,
      logger,
      scanMs: integerOption('scanMs', options.scanMs ?? 1_000, 1, 'ms'),
      leaseMs: integerOption('leaseMs', options.leaseMs ?? 10_000, 1, 'ms'),
      maxWorkers: integerOption('maxWorkers', options.maxWorkers ?? 10_000, 1, 'configs'),
      worker: {
        client: { policy: this.#policy, resolver: this.#resolver, timeoutMs },
        timing: {
          baseMs: integerOption('retry.baseMs', retry.baseMs ?? 1_000, 1, 'ms'),
          maxMs: integerOption('retry.maxMs', retry.maxMs ?? 300_000, 1, 'ms'),
          failingAfter: integerOption(
            'retry.failingAfter',
            retry.failingAfter ?? 10,
            1,
            'failures',
          ),
          probeMs: integerOption('retry.probeMs', retry.probeMs ?? 300_000, 1, 'ms'),
        },
        payloads: {
          statusOnly: options.statusOnly === true,
          coalesceArtifacts: options.coalesceArtifacts === true,
        },
        formats: this.#formats,
        batchSize: 64,
        parkAfterMs: 5_000,
      },
    });
    this.#dispatcher.start();
  }

  check(config: TaskPushNotificationConfig, field: string, protocolVersion = '1.0'): Promise<void> {
    if (protocolVersion !== '1.0' && !this.#formats.has(protocolVersion)) {
      return Promise.reject(this.#noFormat(protocolVersion));
    }
    return checkPushConfig(config, field, this.#policy, this.#resolver);
  }

  async create(
    scope: TaskScope,
    config: TaskPushNotificationConfig,
    options: {
      readonly field?: string;
      readonly fromSeq?: number;
      readonly protocolVersion?: string;
    } = {},
  ): Promise<TaskPushNotificationConfig> {
    const taskId = config.taskId ?? '';
    if (taskId === '') {
      throw InvalidParamsError.fromViolations([
        { field: 'taskId', description: 'is required: the task whose updates are pushed' },
      ]);
    }
    await this.check(config, options.field ?? '', options.protocolVersion);
    const record = this.recordOf(config, taskId, options.protocolVersion);
    const stored = await this.#push.putConfig(scope, record, {
      maxConfigs: this.#maxConfigs,
      ...(options.fromSeq === undefined ? {} : { fromSeq: options.fromSeq }),
    });
    if (stored === undefined) throw taskNotFound(taskId);
    if (stored === 'limit-reached') throw this.#limitReached(taskId);
    await this.#dispatcher.claim(taskId, stored.config.id);
    return wireConfig(scope, stored);
  }

  recordOf(
    config: TaskPushNotificationConfig,
    taskId: string,
    protocolVersion = '1.0',
  ): PushConfigRecord {
    const older = protocolVersion === '1.0' ? undefined : protocolVersion;
    if (older !== undefined && !this.#formats.has(older)) throw this.#noFormat(older);
    return {
      taskId,
      id: config.id === undefined || config.id === '' ? newUuid() : config.id,
      url: config.url,
      ...(config.token === undefined ? {} : { token: config.token }),
      ...(config.authentication === undefined ? {} : { authentication: config.authentication }),
      createdAt: Date.now(),
      ...(older === undefined ? {} : { protocolVersion: older }),
    };
  }

  #noFormat(version: string): UnsupportedOperationError {
    this.#logger.warn(
      { protocolVersion: version },
      'a push config created over an older A2A version was refused: give createPushNotifier the compat layer',
    );
    return new UnsupportedOperationError(
      `This server delivers no push notifications in the payload of A2A ${version}; create the config over A2A 1.0`,
      { metadata: { protocolVersion: version } },
    );
  }

  deliver(taskId: string, id: string): Promise<void> {
    return this.#dispatcher.claim(taskId, id);
  }

  async checkRoom(scope: TaskScope, taskId: string, id?: string): Promise<void> {
    const page = await this.#push.listConfigs(scope, taskId, this.#maxConfigs + 1);
    // A task not visible here is answered by the operation itself, as not found.
    if (page === undefined) return;
    const replaces = id !== undefined && page.configs.some((stored) => stored.config.id === id);
    if (!replaces && page.configs.length >= this.#maxConfigs) throw this.#limitReached(taskId);
  }

  #limitReached(taskId: string): UnsupportedOperationError {
    const max = this.#maxConfigs;
    this.#logger.warn(
      { taskId, limit: 'maxConfigsPerTask', max },
      'a push config was refused by a task content limit',
    );
    return new UnsupportedOperationError(
      `Task ${taskId} already has ${max} push notification configs, the most it may (limit maxConfigsPerTask ${max}); delete one, or replace one by its id`,
      { metadata: { taskId, limit: 'maxConfigsPerTask', max: String(max) } },
    );
  }

  async get(
    scope: TaskScope,
    request: GetTaskPushNotificationConfigRequest,
  ): Promise<TaskPushNotificationConfig> {
    const stored = await this.#push.getConfig(scope, request.taskId, request.id);
    if (stored === undefined) {
      throw new TaskNotFoundError(
        `Push notification config ${request.id} of task ${request.taskId} was not found`,
        { metadata: { taskId: request.taskId, configId: request.id } },
      );
    }
    return wireConfig(scope, stored);
  }

  async list(
    scope: TaskScope,
    request: ListTaskPushNotificationConfigsRequest,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    const size =
      request.pageSize === undefined || request.pageSize === 0 ? DEFAULT_PAGE : request.pageSize;
    const afterId =
      request.pageToken === undefined || request.pageToken === ''
        ? undefined
        : decodeConfigPageToken(request.pageToken, request.taskId);
    const page = await this.#push.listConfigs(
      scope,
      request.taskId,
      Math.min(size, MAX_PAGE),
      afterId,
    );
    if (page === undefined) throw taskNotFound(request.taskId);
    const configs = page.configs.map((stored) => wireConfig(scope, stored));
    return page.nextAfterId === undefined
      ? { configs }
      : { configs, nextPageToken: encodeConfigPageToken(page.nextAfterId, request.taskId) };
  }

  async delete(scope: TaskScope, request: DeleteTaskPushNotificationConfigRequest): Promise<void> {
    const deleted = await this.#push.deleteConfig(scope, request.taskId, request.id);
    if (deleted === undefined) throw taskNotFound(request.taskId);
    this.#dispatcher.forget(request.taskId, request.id);
  }

  async deliveryStatus(scope: TaskScope, taskId: string, id: string): Promise<PushDeliveryStatus> {
    const stored = await this.#push.getConfig(scope, taskId, id);
    if (stored === undefined) {
      throw new TaskNotFoundError(
        `Push notification config ${id} of task ${taskId} was not found`,
        {
          metadata: { taskId, configId: id },
        },
      );
    }
    const { state } = stored;
    const iso = (ms: number | undefined) =>
      ms === undefined ? undefined : new Date(ms).toISOString();
    const status: { -readonly [K in keyof PushDeliveryStatus]: PushDeliveryStatus[K] } = {
      pending: Math.max(0, stored.taskSeq - state.deliveredSeq),
      failures: state.failures,
      failing: state.failing,
    };
    if (state.nextAttemptAt > Date.now()) status.nextAttemptAt = iso(state.nextAttemptAt) as string;
    if (state.lastSuccessAt !== undefined)
      status.lastSuccessAt = iso(state.lastSuccessAt) as string;
    if (state.lastError !== undefined) status.lastError = state.lastError;
    if (state.lastErrorAt !== undefined) status.lastErrorAt = iso(state.lastErrorAt) as string;
    return status;
  }

  close(): Promise<void> {
    return this.#dispatcher.close();
  }
}

function taskNotFound(taskId: string): TaskNotFoundError {
  return new TaskNotFoundError(`Task ${taskId} was not found`, { metadata: { taskId } });
}

/** A stored config as the operations answer it (the owner sees its own credentials). */
function wireConfig(scope: TaskScope, stored: StoredPushConfig): TaskPushNotificationConfig {
  const { config } = stored;
  const wire: TaskPushNotificationConfig = {
    id: config.id,
    taskId: config.taskId,
    url: config.url,
  };
  if (scope.tenant !== '') wire.tenant = scope.tenant;
  if (config.token !== undefined) wire.token = config.token;
  if (config.authentication !== undefined) wire.authentication = config.authentication;
  return wire;
}
