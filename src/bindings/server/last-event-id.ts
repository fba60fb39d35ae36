/**
 * The resume position of `SubscribeToTask`: the SSE bindings receive it as the `Last-Event-ID`
 * header (the `id:` of the last event the client saw, a sequence number of the task's event log)
 * and hand the runtime a number, so that bindings without such a header (gRPC metadata) resume
 * the same way.
 */

import { InvalidParamsError } from '../../protocol/errors.js';
import { isEventId } from '../../protocol/event-id.js';

/**
 * The sequence number a `Last-Event-ID` value names, or `undefined` when the header is absent or
 * empty (no resume).
 *
 * @throws InvalidParamsError naming `Last-Event-ID` when the value is not an event id.
 */
export function parseLastEventId(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  if (!isEventId(trimmed)) {
    throw InvalidParamsError.fromViolations([
      {
        field: 'Last-Event-ID',
        description: `must be the id of an event of this task (a non-negative integer, as sent in the SSE id: field), got ${JSON.stringify(value.slice(0, 64))}`,
      },
    ]);
  }
  return Number(trimmed);
}
