/**
 * Every check's code, by the id of its catalogue entry. A test holds the registry and the
 * catalogue to each other: no entry without code, no code without an entry.
 */

import { CARD_CHECKS } from './areas/card-checks.js';
import { CARD_SIGNATURE } from './areas/card-signature.js';
import { ERROR_CHECKS } from './areas/error-checks.js';
import { GRPC_RULES } from './areas/grpc-rules.js';
import { INTERFACE_CARD_CHECKS } from './areas/interface-card-checks.js';
import { JSON_NAMES } from './areas/json-names.js';
import { JSONRPC_RULES } from './areas/jsonrpc-rules.js';
import { MESSAGE_CHECKS } from './areas/message-checks.js';
import { PUSH_CONFIG_CHECKS } from './areas/push-config-checks.js';
import { PUSH_DELIVERY_CHECKS } from './areas/push-delivery-checks.js';
import { REST_RULES } from './areas/rest-rules.js';
import { STREAM_CHECKS } from './areas/stream-checks.js';
import { SUBSCRIBE_CHECKS } from './areas/subscribe-checks.js';
import { TASK_CANCEL_CHECKS } from './areas/task-cancel-checks.js';
import { TASK_LIST_CHECKS } from './areas/task-list-checks.js';
import { TASK_READ_CHECKS } from './areas/task-read-checks.js';
import { V03_KINDS } from './areas/v03-shapes.js';
import { VERSION_CHECKS } from './areas/version-checks.js';
import type { AgentCheck, InterfaceCheck } from './check-implementation.js';

/** The checks of the agent card, by id. */
export const AGENT_CHECKS: ReadonlyMap<string, AgentCheck> = new Map(
  [...CARD_CHECKS, CARD_SIGNATURE].map((check) => [check.id, check]),
);

/** The checks of an interface, by id. */
export const INTERFACE_CHECKS: ReadonlyMap<string, InterfaceCheck> = new Map(
  [
    ...INTERFACE_CARD_CHECKS,
    ...VERSION_CHECKS,
    ...MESSAGE_CHECKS,
    V03_KINDS,
    ...TASK_READ_CHECKS,
    ...TASK_LIST_CHECKS,
    ...TASK_CANCEL_CHECKS,
    ...STREAM_CHECKS,
    ...SUBSCRIBE_CHECKS,
    ...PUSH_CONFIG_CHECKS,
    ...PUSH_DELIVERY_CHECKS,
    ...JSONRPC_RULES,
    ...REST_RULES,
    JSON_NAMES,
    ...GRPC_RULES,
    ...ERROR_CHECKS,
  ].map((check) => [check.id, check]),
);
