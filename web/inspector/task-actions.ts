/**
 * What the Tasks and Events views do with a task: subscribe to it (from the start, or after an
 * event id, which goes to the agent as `Last-Event-ID`), its events joining the timeline.
 */

import type { StreamLine } from '../../src/inspector/inspector-api.js';
import { failureOf, stream } from './api.js';
import { resumedEntry } from './chat-actions.js';
import { addToTimeline, getState, showError, update } from './store.js';
import { kindOf, taskIdOf } from './turns.js';

/** Subscribes to `taskId` until its stream ends; resolves then. */
export async function subscribeTask(taskId: string, lastEventId?: string): Promise<void> {
  const { connection } = getState();
  if (connection === null) return;
  update(() => ({ tab: 'events', error: null }));
  try {
    const body = {
      connectionId: connection.id,
      id: taskId,
      ...(lastEventId === undefined ? {} : { lastEventId }),
    };
    for await (const line of stream<StreamLine>('tasks/subscribe', body)) {
      if (line.kind === 'event') {
        addToTimeline([
          {
            time: line.time,
            source: 'subscribe',
            kind: kindOf(line.payload),
            eventId: line.eventId,
            taskId: taskIdOf(line.payload),
            raw: line.payload,
          },
        ]);
      } else if (line.kind === 'resumed') {
        addToTimeline([{ ...resumedEntry(line), source: 'subscribe' }]);
      } else if (line.kind === 'error') {
        showError('Subscribe', line.failure);
      }
    }
  } catch (error) {
    showError('Subscribe', failureOf(error));
  }
}
