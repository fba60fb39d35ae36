/**
 * From a task's log entries to webhook deliveries: one per event, or — for receivers that do not
 * want every token — only status changes, or consecutive chunks of one artifact coalesced into
 * one `artifactUpdate`. A config created over an older protocol version gets each event as that
 * version's format renders it (0.3: the Task object), never coalesced.
 */

import type { StreamResponse, TaskArtifactUpdateEvent } from '../protocol/generated/types.js';
import type { PushPayloadFormat } from '../runtime/push-notifications.js';
import type { TaskLogEntry } from '../stores/task-store.js';

/** What a config's receiver gets. */
export interface PayloadOptions {
  /** Only `task` snapshots and `statusUpdate` events; the others are skipped. */
  readonly statusOnly: boolean;
  /** Consecutive appended chunks of one artifact are sent as one `artifactUpdate`. */
  readonly coalesceArtifacts: boolean;
}

/** One POST: the events `fromSeq`..`toSeq` (inclusive) as one `StreamResponse`. */
export interface PlannedDelivery {
  readonly fromSeq: number;
  readonly toSeq: number;
  /** The body, or `undefined` when the events are skipped (status-only). */
  readonly json: string | undefined;
}

/**
 * Plans the deliveries of `entries` (consecutive, in order); `format`: the config's version is
 * not 1.0, and its payloads are rendered so.
 */
export function planDeliveries(
  entries: readonly TaskLogEntry[],
  options: PayloadOptions,
  format?: PushPayloadFormat,
): PlannedDelivery[] {
  const planned: PlannedDelivery[] = [];
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as TaskLogEntry;
    const { payload } = entry;
    if (options.statusOnly && payload.task === undefined && payload.statusUpdate === undefined) {
      planned.push({ fromSeq: entry.seq, toSeq: entry.seq, json: undefined });
      continue;
    }
    if (format !== undefined) {
      planned.push({ fromSeq: entry.seq, toSeq: entry.seq, json: format.render(payload) });
      continue;
    }
    if (!options.coalesceArtifacts || payload.artifactUpdate === undefined) {
      planned.push({ fromSeq: entry.seq, toSeq: entry.seq, json: entry.json });
      continue;
    }
    let merged: TaskArtifactUpdateEvent = payload.artifactUpdate;
    let last = entry;
    while (i + 1 < entries.length) {
      const next = (entries[i + 1] as TaskLogEntry).payload.artifactUpdate;
      if (
        next === undefined ||
        next.append !== true ||
        next.artifact.artifactId !== merged.artifact.artifactId ||
        merged.lastChunk === true
      ) {
        break;
      }
      merged = mergeChunk(merged, next);
      i++;
      last = entries[i] as TaskLogEntry;
    }
    planned.push({
      fromSeq: entry.seq,
      toSeq: last.seq,
      json:
        last === entry
          ? entry.json
          : JSON.stringify({ artifactUpdate: merged } satisfies StreamResponse),
    });
  }
  return planned;
}

function mergeChunk(
  into: TaskArtifactUpdateEvent,
  next: TaskArtifactUpdateEvent,
): TaskArtifactUpdateEvent {
  const artifact = {
    ...into.artifact,
    ...next.artifact,
    parts: [...into.artifact.parts, ...next.artifact.parts],
  };
  const merged: TaskArtifactUpdateEvent = { ...into, artifact };
  if (next.lastChunk !== undefined) merged.lastChunk = next.lastChunk;
  if (next.metadata !== undefined) merged.metadata = next.metadata;
  return merged;
}
