/**
 * The webhook payload of a push config created over A2A 0.3: the Task object (0.3 §9.5), as
 * 0.3 writes it (`kind: "task"`), where 1.0 posts a `StreamResponse`. A task snapshot is posted
 * as it is, a status change as the task with that status (id, context and status: the fields 0.3
 * requires); artifact chunks and messages, which no 0.3 Task payload tells apart, are not posted —
 * the task's artifacts are read with `tasks/get`, as 0.3 clients do.
 */

import type { StreamResponse } from '../../protocol/generated/types.js';
import type { PushPayloadFormat } from '../../runtime/push-notifications.js';
import { taskToV03 } from './translate/v03-task.js';
import { V03_VERSION } from './translate/v03-types.js';

function render(event: StreamResponse): string | undefined {
  if (event.task !== undefined) return JSON.stringify(taskToV03(event.task));
  const update = event.statusUpdate;
  if (update === undefined) return undefined;
  return JSON.stringify(
    taskToV03({ id: update.taskId, contextId: update.contextId, status: update.status }),
  );
}

/** The 0.3 push payload: see the module documentation. */
export const V03_PUSH_PAYLOADS: PushPayloadFormat = Object.freeze({
  protocolVersion: V03_VERSION,
  // The content type of 0.3 §9.5's example: 0.3 has no A2A media type.
  contentType: 'application/json',
  render,
});
