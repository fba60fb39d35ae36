/**
 * Links from a call's span to the traces of the tasks it concerns, where the call is not their
 * child: a `SubscribeToTask` (or a message continuing a task, perhaps on another replica) is a
 * span of the subscriber's trace, linked to the task's originating context; a message's
 * `referenceTaskIds` link to theirs. A link, not a parent: the call belongs to whoever made it,
 * and the task's trace may be long finished.
 *
 * Links are added once the task is read, after the span started (`Span.addLink`, API 1.9): the
 * server's span starts before anything knows which task a call concerns. With an older API or
 * SDK whose spans lack `addLink`, nothing is linked.
 */

import { trace, type Span } from '@opentelemetry/api';
import { spanContextOfTask, type TaskTraceContext } from './task-trace-context.js';
import { ATTR_A2A_TASK_ID } from './telemetry-attributes.js';

/**
 * The attribute of a link that says what it links to. Tandem's, like its values: the conventions
 * say nothing of links. The SERVER span's link to an untrusted inbound context says `inbound`.
 */
export const ATTR_A2A_LINK = 'a2a.link';

/**
 * What a link points to: the context the task began in (`task_origin`), or that of a task the
 * message refers to (`reference_task`).
 */
export type TaskLinkRelation = 'task_origin' | 'reference_task';

/** The span of the call running now, if it records (links are of no use to any other). */
export function recordingSpan(): Span | undefined {
  const span = trace.getActiveSpan();
  return span !== undefined && span.isRecording() ? span : undefined;
}

/**
 * Links `span` to a task's stored context; returns whether a link was added. Nothing is linked
 * when `span` does not record or the task has no stored context (it was created untraced).
 */
export function linkToTask(
  span: Span | undefined,
  stored: TaskTraceContext | undefined,
  relation: TaskLinkRelation,
  taskId: string,
): boolean {
  if (span === undefined || !span.isRecording()) return false;
  const target = spanContextOfTask(stored);
  if (target === undefined) return false;
  // Spans of API < 1.9 have no addLink: the type says they do, the object may not.
  const addLink = (span as Partial<Pick<Span, 'addLink'>>).addLink;
  if (typeof addLink !== 'function') return false;
  addLink.call(span, {
    context: target,
    attributes: { [ATTR_A2A_LINK]: relation, [ATTR_A2A_TASK_ID]: taskId },
  });
  return true;
}
