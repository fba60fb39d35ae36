/**
 * An {@link EventStream} from the one thing each binding's driver reads its own way — the next
 * event — so that `take` and `rest` mean the same on every binding.
 */

import type { EventStream, StreamEvent } from './a2a-driver.js';

export function eventStreamOf(parts: {
  readonly activatedExtensions: readonly string[];
  readonly next: () => Promise<StreamEvent | undefined>;
  readonly close: () => void;
}): EventStream {
  const { next } = parts;
  return {
    activatedExtensions: parts.activatedExtensions,
    next,
    async take(n) {
      const events: StreamEvent[] = [];
      while (events.length < n) {
        const event = await next();
        if (event === undefined) {
          throw new Error(`The stream ended after ${events.length} of ${n} events`);
        }
        events.push(event);
      }
      return events;
    },
    async rest() {
      const events: StreamEvent[] = [];
      for (let event = await next(); event !== undefined; event = await next()) {
        events.push(event);
      }
      return events;
    },
    close: parts.close,
  };
}
