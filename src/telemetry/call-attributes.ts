/**
 * The span attributes of an A2A call, read from its request and from what it answered (a task,
 * a message, each event of a stream), the same on the client and the server side. Ids go on
 * spans only; metrics get none of them (see instrument-catalogue.ts).
 */

import type { Attributes, Span } from '@opentelemetry/api';
import type { Message, StreamResponse, Task, TaskStatus } from '../protocol/generated/types.js';
import type { OperationName } from '../protocol/operations.js';
import {
  ATTR_A2A_MESSAGE_ID,
  ATTR_A2A_METHOD_NAME,
  ATTR_A2A_REFERENCE_TASK_IDS,
  ATTR_A2A_TASK_ID,
  ATTR_A2A_TASK_STATE,
  ATTR_A2A_TENANT,
  ATTR_GEN_AI_CONVERSATION_ID,
} from './telemetry-attributes.js';

/** A request message seen structurally: every operation's fields the attributes come from. */
interface RequestFields {
  readonly tenant?: unknown;
  readonly id?: unknown;
  readonly taskId?: unknown;
  readonly contextId?: unknown;
  readonly message?: Partial<Message>;
}

function nonEmpty(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

/**
 * The attributes known when a call starts: its method, the message's ids, the task it names
 * (`id` of the task operations, `taskId` of the push config ones, the message's `taskId`), the
 * conversation and the tenant.
 */
export function requestAttributes(operation: OperationName, request: unknown): Attributes {
  const attributes: Attributes = { [ATTR_A2A_METHOD_NAME]: operation };
  if (typeof request !== 'object' || request === null) return attributes;
  const fields = request as RequestFields;
  if (nonEmpty(fields.tenant)) attributes[ATTR_A2A_TENANT] = fields.tenant;
  const message = fields.message;
  if (typeof message === 'object' && message !== null) {
    if (nonEmpty(message.messageId)) attributes[ATTR_A2A_MESSAGE_ID] = message.messageId;
    if (nonEmpty(message.taskId)) attributes[ATTR_A2A_TASK_ID] = message.taskId;
    if (nonEmpty(message.contextId)) attributes[ATTR_GEN_AI_CONVERSATION_ID] = message.contextId;
    const references = message.referenceTaskIds;
    if (Array.isArray(references) && references.length > 0) {
      attributes[ATTR_A2A_REFERENCE_TASK_IDS] = references.filter(nonEmpty);
    }
  }
  const taskId =
    operation === 'ListTasks'
      ? undefined
      : operation.includes('PushNotification')
        ? fields.taskId
        : fields.id;
  if (nonEmpty(taskId)) attributes[ATTR_A2A_TASK_ID] = taskId;
  if (operation === 'ListTasks' && nonEmpty(fields.contextId)) {
    attributes[ATTR_GEN_AI_CONVERSATION_ID] = fields.contextId;
  }
  return attributes;
}

function setTask(
  span: Span,
  taskId: string | undefined,
  contextId: string | undefined,
  status: TaskStatus | undefined,
): void {
  if (nonEmpty(taskId)) span.setAttribute(ATTR_A2A_TASK_ID, taskId);
  if (nonEmpty(contextId)) span.setAttribute(ATTR_GEN_AI_CONVERSATION_ID, contextId);
  if (status !== undefined && nonEmpty(status.state)) {
    span.setAttribute(ATTR_A2A_TASK_STATE, status.state);
  }
}

function setMessage(span: Span, message: Message): void {
  if (nonEmpty(message.taskId)) span.setAttribute(ATTR_A2A_TASK_ID, message.taskId);
  if (nonEmpty(message.contextId))
    span.setAttribute(ATTR_GEN_AI_CONVERSATION_ID, message.contextId);
}

/**
 * Records what a unary call answered, where it names a task: a `Task` (SendMessage, GetTask,
 * CancelTask), a `Message`, or a push config (`taskId`). Other answers add nothing.
 */
export function setResultAttributes(span: Span, result: unknown): void {
  if (typeof result !== 'object' || result === null) return;
  const value = result as { task?: Task; message?: Message; id?: unknown; status?: TaskStatus };
  if (value.task !== undefined)
    setTask(span, value.task.id, value.task.contextId, value.task.status);
  else if (value.message !== undefined) setMessage(span, value.message);
  else if (nonEmpty(value.id) && value.status !== undefined) {
    const task = result as Task;
    setTask(span, task.id, task.contextId, task.status);
  }
}

/** Records one event of a stream: the task it is about and its latest state. */
export function setEventAttributes(span: Span, event: StreamResponse): void {
  if (event.task !== undefined)
    setTask(span, event.task.id, event.task.contextId, event.task.status);
  else if (event.statusUpdate !== undefined) {
    const update = event.statusUpdate;
    setTask(span, update.taskId, update.contextId, update.status);
  } else if (event.artifactUpdate !== undefined) {
    setTask(span, event.artifactUpdate.taskId, event.artifactUpdate.contextId, undefined);
  } else if (event.message !== undefined) setMessage(span, event.message);
}
