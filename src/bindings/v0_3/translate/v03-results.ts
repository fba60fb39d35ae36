/**
 * Operation results between 1.0 and 0.3: a `SendMessageResponse` is the bare task or message
 * with its `kind`, a push config list is a bare array (0.3 has no paging), a deleted config is
 * `null`, the extended card carries both versions' fields (`v03-card.ts`).
 */

import type {
  AgentCard,
  ListTaskPushNotificationConfigsResponse,
  SendMessageResponse,
  Task,
  TaskPushNotificationConfig,
} from '../../../protocol/generated/types.js';
import type { OperationName } from '../../../protocol/operations.js';
import { isObject, translate } from './untranslatable.js';
import { cardFromV03, cardWithV03Fields, isV03Card } from './v03-card.js';
import { typeName } from './v03-fields.js';
import { messageFromV03, messageToV03 } from './v03-message.js';
import { taskPushConfigFromV03, taskPushConfigToV03 } from './v03-push.js';
import { taskFromV03, taskToV03 } from './v03-task.js';

/** A 1.0 result as the 0.3 result of the same method. */
export function resultToV03(operation: OperationName, result: unknown): unknown {
  switch (operation) {
    case 'SendMessage': {
      const response = result as SendMessageResponse;
      return response.task !== undefined
        ? taskToV03(response.task)
        : messageToV03(response.message);
    }
    case 'GetTask':
    case 'CancelTask':
      return taskToV03(result as Task);
    case 'CreateTaskPushNotificationConfig':
    case 'GetTaskPushNotificationConfig':
      return taskPushConfigToV03(result as TaskPushNotificationConfig);
    case 'ListTaskPushNotificationConfigs':
      return ((result as ListTaskPushNotificationConfigsResponse).configs ?? []).map(
        taskPushConfigToV03,
      );
    case 'DeleteTaskPushNotificationConfig':
      return null;
    case 'GetExtendedAgentCard':
      return cardWithV03Fields(result as AgentCard);
    default:
      return result;
  }
}

/**
 * A 0.3 result (JSON) in the 1.0 shape of the operation's response, to be validated as such.
 *
 * @throws UntranslatableError naming every field that cannot be translated.
 */
export function resultFromV03(operation: OperationName, value: unknown): unknown {
  return translate(`The 0.3 result of ${operation}`, (issues) => {
    switch (operation) {
      case 'SendMessage': {
        if (isObject(value) && value.kind === 'message') {
          return { message: messageFromV03(value, 'result', issues) };
        }
        if (isObject(value) && value.kind === 'task') {
          return { task: taskFromV03(value, 'result', issues) };
        }
        issues.add(
          'result.kind',
          `must be "task" or "message", got ${typeName(isObject(value) ? value.kind : value)}`,
        );
        return undefined;
      }
      case 'GetTask':
      case 'CancelTask':
        return taskFromV03(value, 'result', issues);
      case 'CreateTaskPushNotificationConfig':
      case 'GetTaskPushNotificationConfig':
        return taskPushConfigFromV03(value, 'result', issues);
      case 'ListTaskPushNotificationConfigs': {
        if (!Array.isArray(value)) {
          issues.add('result', 'must be an array of push notification configs');
          return undefined;
        }
        return {
          configs: value.flatMap((entry: unknown, index) => {
            const config = taskPushConfigFromV03(entry, `result[${index}]`, issues);
            return config === undefined ? [] : [config];
          }),
        };
      }
      case 'DeleteTaskPushNotificationConfig':
        return {};
      case 'GetExtendedAgentCard':
        return isV03Card(value) ? cardFromV03(value) : value;
      default:
        return value;
    }
  });
}
