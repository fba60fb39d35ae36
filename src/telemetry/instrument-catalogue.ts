/**
 * Every metric Tandem records, as data: its OpenTelemetry name (dotted; the Prometheus name
 * follows by the standard mapping, `a2a.server.operation.duration` in `s` →
 * `a2a_server_operation_duration_seconds`), kind, unit (UCUM; durations in seconds), the bucket
 * boundaries of a histogram and the attributes it may carry. Task, context and message ids are
 * never among them: a label per task would make a series per task. docs/observability.md lists
 * this catalogue, and a test holds the two equal.
 */

import {
  ATTR_A2A_METHOD_NAME,
  ATTR_A2A_PROTOCOL_BINDING,
  ATTR_A2A_PROTOCOL_VERSION,
  ATTR_A2A_STREAM_END_REASON,
  ATTR_A2A_TASK_STATE,
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
} from './telemetry-attributes.js';

/**
 * Bucket boundaries of operation durations, in seconds: the MCP conventions' (which go to 300 s,
 * since tool calls, like A2A tasks, run long), not the SDK's default, which is shaped for
 * milliseconds.
 */
export const OPERATION_DURATION_BUCKETS: readonly number[] = [
  0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
];

/** Bucket boundaries of store operations, in seconds: the database conventions'. */
export const STORE_DURATION_BUCKETS: readonly number[] = [
  0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10,
];

/** Bucket boundaries of counts (events per stream, writes per batch). */
export const COUNT_BUCKETS: readonly number[] = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000,
];

/** The store's kind on store metrics: `memory`, `sqlite`, `postgresql`. */
export const ATTR_DB_SYSTEM_NAME = 'db.system.name';
/** The store operation (`create`, `append`, `get`, `list`, `readEvents`...). */
export const ATTR_DB_OPERATION_NAME = 'db.operation.name';
/** Which limit refused a call (`calls`, `streams`, `rate`...). Tandem's. */
export const ATTR_A2A_LIMIT_NAME = 'a2a.limit.name';

/** What kind of instrument a metric is. */
export type InstrumentKind = 'histogram' | 'counter' | 'updown-counter' | 'gauge';

/** One metric of the catalogue. */
export interface InstrumentDefinition {
  readonly name: string;
  readonly kind: InstrumentKind;
  readonly unit: string;
  readonly description: string;
  /** A histogram's bucket boundaries. */
  readonly buckets?: readonly number[] | undefined;
  /** The attributes its points may carry; none is unbounded. */
  readonly attributes: readonly string[];
}

const OPERATION = [
  ATTR_A2A_METHOD_NAME,
  ATTR_ERROR_TYPE,
  ATTR_A2A_PROTOCOL_VERSION,
  ATTR_A2A_PROTOCOL_BINDING,
];

/** The catalogue, by the name the code refers to each metric. */
export const INSTRUMENTS = {
  serverOperationDuration: {
    name: 'a2a.server.operation.duration',
    kind: 'histogram',
    unit: 's',
    description:
      'Duration of A2A operations as the server handles them; a stream lasts to its end.',
    buckets: OPERATION_DURATION_BUCKETS,
    attributes: [...OPERATION, ATTR_GEN_AI_AGENT_NAME],
  },
  clientOperationDuration: {
    name: 'a2a.client.operation.duration',
    kind: 'histogram',
    unit: 's',
    description:
      'Duration of A2A operations as the client sees them; a stream lasts until it is consumed.',
    buckets: OPERATION_DURATION_BUCKETS,
    attributes: [...OPERATION, ATTR_SERVER_ADDRESS, ATTR_SERVER_PORT],
  },
  serverTimeToFirstEvent: {
    name: 'a2a.server.response.time_to_first_event',
    kind: 'histogram',
    unit: 's',
    description: 'Time from the start of a streaming call to its first event.',
    buckets: OPERATION_DURATION_BUCKETS,
    attributes: [
      ATTR_A2A_METHOD_NAME,
      ATTR_A2A_PROTOCOL_VERSION,
      ATTR_A2A_PROTOCOL_BINDING,
      ATTR_GEN_AI_AGENT_NAME,
    ],
  },
  serverStreamEvents: {
    name: 'a2a.server.stream.events',
    kind: 'histogram',
    unit: '{event}',
    description: 'Events sent on one stream (SSE or gRPC), by how the stream ended.',
    buckets: COUNT_BUCKETS,
    attributes: [
      ATTR_A2A_METHOD_NAME,
      ATTR_A2A_PROTOCOL_BINDING,
      ATTR_A2A_STREAM_END_REASON,
      ATTR_GEN_AI_AGENT_NAME,
    ],
  },
  serverTasksActive: {
    name: 'a2a.server.tasks.active',
    kind: 'updown-counter',
    unit: '{task}',
    description: 'Tasks not in a terminal state, by state, in this process.',
    attributes: [ATTR_A2A_TASK_STATE, ATTR_GEN_AI_AGENT_NAME],
  },
  serverTasksFinished: {
    name: 'a2a.server.tasks.finished',
    kind: 'counter',
    unit: '{task}',
    description: 'Tasks that reached a terminal state, by that state.',
    attributes: [ATTR_A2A_TASK_STATE, ATTR_GEN_AI_AGENT_NAME],
  },
  serverTaskInterruptionDuration: {
    name: 'a2a.server.task.interruption.duration',
    kind: 'histogram',
    unit: 's',
    description:
      'How long a task waited in TASK_STATE_INPUT_REQUIRED or TASK_STATE_AUTH_REQUIRED before it went on.',
    buckets: OPERATION_DURATION_BUCKETS,
    attributes: [ATTR_A2A_TASK_STATE, ATTR_GEN_AI_AGENT_NAME],
  },
  serverPushAttempts: {
    name: 'a2a.server.push.delivery.attempts',
    kind: 'counter',
    unit: '{attempt}',
    description: 'Webhook POSTs of push notifications, successful or not.',
    attributes: [ATTR_ERROR_TYPE],
  },
  serverPushFailures: {
    name: 'a2a.server.push.delivery.failures',
    kind: 'counter',
    unit: '{attempt}',
    description:
      'Push delivery attempts that failed, by reason (the HTTP status, timeout, connection, refused_destination).',
    attributes: [ATTR_ERROR_TYPE],
  },
  serverPushLatency: {
    name: 'a2a.server.push.delivery.duration',
    kind: 'histogram',
    unit: 's',
    description: 'Time from an event to the 2xx of its webhook, retries included.',
    buckets: OPERATION_DURATION_BUCKETS,
    attributes: [],
  },
  serverPushPending: {
    name: 'a2a.server.push.deliveries.pending',
    kind: 'updown-counter',
    unit: '{delivery}',
    description: 'Push deliveries this process has yet to make.',
    attributes: [],
  },
  serverPushFailingConfigs: {
    name: 'a2a.server.push.configs.failing',
    kind: 'updown-counter',
    unit: '{config}',
    description: 'Push configs whose last delivery attempt failed.',
    attributes: [],
  },
  serverStoreDuration: {
    name: 'a2a.server.store.operation.duration',
    kind: 'histogram',
    unit: 's',
    description: 'Duration of task store operations.',
    buckets: STORE_DURATION_BUCKETS,
    attributes: [ATTR_DB_SYSTEM_NAME, ATTR_DB_OPERATION_NAME, ATTR_ERROR_TYPE],
  },
  serverStoreBatchSize: {
    name: 'a2a.server.store.batch.size',
    kind: 'histogram',
    unit: '{write}',
    description: 'Writes committed together, where the store batches them.',
    buckets: COUNT_BUCKETS,
    attributes: [ATTR_DB_SYSTEM_NAME],
  },
  serverStoreLeaseTakeovers: {
    name: 'a2a.server.store.lease.takeovers',
    kind: 'counter',
    unit: '{task}',
    description: 'Tasks this process failed after their lease expired on another replica.',
    attributes: [ATTR_DB_SYSTEM_NAME],
  },
  serverStoreChangeFeedResyncs: {
    name: 'a2a.server.store.change_feed.resyncs',
    kind: 'counter',
    unit: '{resync}',
    description: 'Times the change feed lost its connection and read the log again.',
    attributes: [ATTR_DB_SYSTEM_NAME],
  },
  serverLimitRefusals: {
    name: 'a2a.server.limit.refusals',
    kind: 'counter',
    unit: '{call}',
    description: 'Calls refused by a limit, by limit.',
    attributes: [ATTR_A2A_LIMIT_NAME, ATTR_A2A_METHOD_NAME],
  },
  serverAuthRefusals: {
    name: 'a2a.server.auth.refusals',
    kind: 'counter',
    unit: '{call}',
    description:
      'Calls refused before their operation by authentication, by reason (unauthenticated, forbidden, too_many_failures).',
    attributes: [ATTR_ERROR_TYPE, ATTR_A2A_PROTOCOL_BINDING],
  },
} as const satisfies Record<string, InstrumentDefinition>;

/** The name the code uses for a metric of the catalogue. */
export type InstrumentKey = keyof typeof INSTRUMENTS;
