/**
 * One agent as every binding and listener serves it: its request handler, and the chain its
 * operations go through — the server's interceptors, its call limits, then the operation table.
 * The server makes one per agent, once, and every binding of that agent (JSON-RPC, HTTP+JSON,
 * gRPC, the 0.3 doors) calls the same chain, so that an interceptor or a limit counts a call the
 * same whichever door it came through.
 */

import type { Logger } from '../../runtime/logger.js';
import {
  pushDeliveryStatusOf,
  type PushDeliveryStatusSource,
} from '../../runtime/push-delivery-status-source.js';
import type { A2ARequestHandler } from '../../runtime/request-handler.js';
import { callLimitValues, CallLimiter } from './call-limiter.js';
import type { CallLimitsOptions } from './call-limit-options.js';
import { operationTable } from './operation-table.js';
import {
  applyServerInterceptors,
  type ServedAgent,
  type ServerCallHandler,
  type ServerInterceptor,
} from './server-interceptor.js';

/** An agent, ready to serve. */
export interface AgentEndpoint {
  readonly agent: ServedAgent;
  /** For what is not an operation: extension negotiation, the card, shutdown. */
  readonly handler: A2ARequestHandler;
  /** The agent's operations, through the server's interceptors and limits. */
  readonly invoke: ServerCallHandler;
  /** Tandem's push delivery status, counted by the limits too; absent when not reported. */
  readonly deliveryStatus: PushDeliveryStatusSource | undefined;
  /**
   * What a refusal of a client of an older protocol version (a request without `A2A-Version`, a
   * 0.3 method name) adds, to tell it the way in; `undefined` for nothing.
   */
  readonly olderVersionHint: string | undefined;
}

/** What the server serves every agent with. */
export interface EndpointOptions {
  readonly interceptors: readonly ServerInterceptor[];
  /** The call limits, or `undefined` for none. */
  readonly limits: CallLimitsOptions | undefined;
  readonly logger: Logger;
  /** See {@link AgentEndpoint.olderVersionHint}. */
  readonly olderVersionHint?: string | undefined;
}

/**
 * The endpoint of the agent mounted at `path`.
 *
 * @throws ConfigurationError for a limit that is not a positive integer.
 */
export function createAgentEndpoint(
  path: string,
  handler: A2ARequestHandler,
  options: EndpointOptions,
): AgentEndpoint {
  const table = operationTable(handler);
  const source = pushDeliveryStatusOf(handler);
  const agent: ServedAgent = Object.freeze({ path, card: handler.card });
  const limits = options.limits;
  const olderVersionHint = options.olderVersionHint;
  if (limits === undefined) {
    return {
      agent,
      handler,
      invoke: applyServerInterceptors(options.interceptors, table),
      deliveryStatus: source,
      olderVersionHint,
    };
  }
  const limiter = new CallLimiter(callLimitValues(limits), options.logger);
  return {
    agent,
    handler,
    invoke: applyServerInterceptors([...options.interceptors, limiter.interceptor], table),
    deliveryStatus: source === undefined ? undefined : limitedDeliveryStatus(source, limiter),
    olderVersionHint,
  };
}

/** The delivery status, counted against the caller's request rate as the operations are. */
function limitedDeliveryStatus(
  source: PushDeliveryStatusSource,
  limiter: CallLimiter,
): PushDeliveryStatusSource {
  return {
    getPushDeliveryStatus(call, request) {
      const refused = limiter.admit(call, 'GetPushDeliveryStatus');
      return refused === undefined
        ? source.getPushDeliveryStatus(call, request)
        : Promise.reject(refused);
    },
  };
}
