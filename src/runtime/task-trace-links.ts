/**
 * Where the runtime joins a task to traces (docs/observability.md, "Where the conventions stop"):
 * a new task keeps the trace context of the call that admitted it, and a call that comes back to
 * an existing task — a subscription, a message continuing it (perhaps on another replica), a
 * cancellation, a message naming it in `referenceTaskIds` — links its span to that context.
 *
 * The call's span is whatever span is active when the operation runs: a server interceptor that
 * traces calls runs the operation in its SERVER span's context. With none (no SDK, no tracing
 * interceptor), nothing is kept and nothing is linked, and no store is read for it.
 */

import type { Message } from '../protocol/generated/types.js';
import { linkToTask, recordingSpan } from '../telemetry/span-links.js';
import { captureTaskTraceContext } from '../telemetry/task-trace-context.js';
import type { StoredTask, TaskReadScope, TaskStore } from '../stores/task-store.js';
import type { Logger } from './logger.js';
import type { TaskRun } from './task-run.js';

/**
 * The most `referenceTaskIds` of one message whose tasks are read for links: each is a store
 * read, and a message may name many.
 */
export const MAX_LINKED_REFERENCES = 16;

/** A new task keeps the trace context active now: the context of the call admitting it. */
export function keepOriginOf(run: TaskRun): void {
  const traceContext = captureTaskTraceContext();
  if (traceContext !== undefined) run.traceContextWithCreation(traceContext);
}

/** Links the span of the running call to the context `stored` began in. */
export function linkToOrigin(stored: StoredTask, taskId: string): void {
  if (stored.traceContext === undefined) return;
  linkToTask(recordingSpan(), stored.traceContext, 'task_origin', taskId);
}

/**
 * Links the span of the running call to the tasks `message` refers to, those visible in `scope`
 * (a reference to a task the caller cannot see links nothing, and says nothing of it). Returns
 * `undefined`, reading nothing, when the span does not record or there are no references.
 */
export function linkReferencedTasks(
  store: TaskStore,
  scope: TaskReadScope,
  message: Message,
  logger: Logger,
): Promise<void> | undefined {
  const references = message.referenceTaskIds;
  if (references === undefined || references.length === 0) return undefined;
  const span = recordingSpan();
  if (span === undefined) return undefined;
  const ids = [...new Set(references)].filter((id) => id !== '').slice(0, MAX_LINKED_REFERENCES);
  const view = { historyLength: 0, includeArtifacts: false } as const;
  return Promise.all(
    ids.map(async (taskId) => {
      try {
        const stored = await store.getTask(scope, taskId, view);
        linkToTask(span, stored?.traceContext, 'reference_task', taskId);
      } catch (error) {
        // A link is worth less than the message: its failed read is logged, not answered.
        logger.warn({ err: error, taskId }, 'could not read a referenced task to link its trace');
      }
    }),
  ).then(() => undefined);
}
