/**
 * Refusals before an operation runs: `a2a.server.limit.refusals` by the limit that refused the
 * call (a rate, the open streams, the parts of a message, the failed authentications of an
 * address) and `a2a.server.auth.refusals` by reason (`unauthenticated`, `forbidden`,
 * `too_many_failures`). The limiter and the identity hook call them where they refuse.
 */

import type { Attributes } from '@opentelemetry/api';
import { ATTR_A2A_LIMIT_NAME } from './instrument-catalogue.js';
import { tandemInstruments } from './instruments.js';
import {
  ATTR_A2A_METHOD_NAME,
  ATTR_A2A_PROTOCOL_BINDING,
  ATTR_ERROR_TYPE,
} from './telemetry-attributes.js';

const cache = new Map<string, Attributes>();

function cached(key: string, make: () => Attributes): Attributes {
  let attributes = cache.get(key);
  if (attributes === undefined) {
    attributes = make();
    // Bounded by the limits, reasons, methods and bindings there are.
    if (cache.size < 1024) cache.set(key, attributes);
  }
  return attributes;
}

/**
 * A call refused by `limit`; `method` when the operation is known (a refusal before the request
 * is read, for failed authentications, has none: its path may hold a task id).
 */
export function recordLimitRefusal(limit: string, method?: string): void {
  tandemInstruments().serverLimitRefusals.add(
    1,
    cached(`l\n${limit}\n${method ?? ''}`, () =>
      method === undefined
        ? { [ATTR_A2A_LIMIT_NAME]: limit }
        : { [ATTR_A2A_LIMIT_NAME]: limit, [ATTR_A2A_METHOD_NAME]: method },
    ),
  );
}

/** Why authentication refused a call. */
export type AuthRefusalReason = 'unauthenticated' | 'forbidden' | 'too_many_failures';

/** A call refused by authentication, on `binding`. */
export function recordAuthRefusal(reason: AuthRefusalReason, binding: string): void {
  tandemInstruments().serverAuthRefusals.add(
    1,
    cached(`a\n${reason}\n${binding}`, () => ({
      [ATTR_ERROR_TYPE]: reason,
      [ATTR_A2A_PROTOCOL_BINDING]: binding,
    })),
  );
}
