/**
 * The page's live feed from the backend (`GET /api/live`): wire entries as they are sent and
 * answered, and push deliveries as they arrive, kept in the state for the Wire and Push views
 * (deliveries join the event timeline too). It reconnects when the stream drops.
 */

import type { LiveLine, PushDelivery, WireEntry } from '../../src/inspector/inspector-api.js';
import { stream } from './api.js';
import { addToTimeline, update } from './store.js';

function putWire(entries: readonly WireEntry[], entry: WireEntry): WireEntry[] {
  const index = entries.findIndex((e) => e.id === entry.id);
  if (index < 0) return [...entries, entry].slice(-500);
  const next = [...entries];
  next[index] = entry;
  return next;
}

function onDelivery(delivery: PushDelivery): void {
  update((s) =>
    s.deliveries.some((d) => d.id === delivery.id)
      ? {}
      : { deliveries: [...s.deliveries, delivery] },
  );
  addToTimeline([
    {
      time: delivery.time,
      source: 'push',
      kind: delivery.kind ?? 'push',
      eventId: delivery.deliveryId,
      taskId: delivery.taskId,
      raw: delivery.payload,
    },
  ]);
}

/** Follows the feed for as long as the page lives; `onReady` runs on each (re)connection. */
export async function followLiveFeed(onReady: () => void): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      for await (const line of stream<LiveLine>('live', undefined)) {
        if (line.kind === 'ready') {
          attempt = 0;
          onReady();
        } else if (line.kind === 'wire') {
          update((s) => ({ wire: putWire(s.wire, line.entry) }));
        } else {
          onDelivery(line.delivery);
        }
      }
    } catch {
      // The inspector stopped or restarted: try again, less and less often.
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(10_000, 500 * 2 ** attempt)));
  }
}
