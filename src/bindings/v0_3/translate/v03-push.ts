/**
 * Push notification configs between 0.3 and 1.0. 0.3 nests the config under
 * `pushNotificationConfig` beside the `taskId` and lists authentication `schemes`; 1.0 flattens it
 * and holds one `scheme`. A 0.3 config with several schemes is untranslatable (the 1.0 agent
 * could honour only one); a config without an id gets the task id, as the 0.3 SDKs did, so that a
 * 0.3 `get` without `pushNotificationConfigId` finds it.
 */

import type { TaskPushNotificationConfig } from '../../../protocol/generated/types.js';
import { isObject, type Issues } from './untranslatable.js';
import { defined, join, readObject, readString, readStrings, typeName } from './v03-fields.js';
import type { V03PushNotificationConfig, V03TaskPushNotificationConfig } from './v03-types.js';

/** The inner 0.3 config of a 1.0 one. */
export function pushConfigToV03(config: TaskPushNotificationConfig): V03PushNotificationConfig {
  const auth = config.authentication;
  return defined({
    id: config.id,
    url: config.url,
    token: config.token,
    authentication:
      auth === undefined
        ? undefined
        : defined({ schemes: [auth.scheme], credentials: auth.credentials }),
  });
}

/** A 1.0 config as the 0.3 `TaskPushNotificationConfig`. */
export function taskPushConfigToV03(
  config: TaskPushNotificationConfig,
): V03TaskPushNotificationConfig {
  return { taskId: config.taskId ?? '', pushNotificationConfig: pushConfigToV03(config) };
}

/** The inner 0.3 config (JSON) as the 1.0 config of task `taskId`. */
export function pushConfigFromV03(
  value: unknown,
  taskId: string | undefined,
  path: string,
  issues: Issues,
): TaskPushNotificationConfig | undefined {
  if (!isObject(value)) {
    issues.add(
      path,
      value === undefined ? 'is required' : `must be an object, got ${typeName(value)}`,
    );
    return undefined;
  }
  const url = readString(value, 'url', path, issues, true);
  const auth = readObject(value, 'authentication', path, issues);
  let authentication: TaskPushNotificationConfig['authentication'];
  if (auth !== undefined) {
    const authPath = join(path, 'authentication');
    const schemes = readStrings(auth, 'schemes', authPath, issues) ?? [];
    const credentials = readString(auth, 'credentials', authPath, issues);
    if (schemes.length > 1) {
      issues.add(
        join(authPath, 'schemes'),
        `A2A 1.0 holds one authentication scheme per config; send one, not ${schemes.length}`,
      );
    } else if (schemes.length === 1) {
      authentication = defined({ scheme: schemes[0] as string, credentials });
    } else if (credentials !== undefined) {
      issues.add(join(authPath, 'schemes'), 'must name the scheme of the credentials');
    }
  }
  if (url === undefined) return undefined;
  return defined({
    id: readString(value, 'id', path, issues) ?? taskId,
    taskId,
    url,
    token: readString(value, 'token', path, issues),
    authentication,
  });
}

/** A 0.3 `TaskPushNotificationConfig` (JSON) as the 1.0 config. */
export function taskPushConfigFromV03(
  value: unknown,
  path: string,
  issues: Issues,
): TaskPushNotificationConfig | undefined {
  if (!isObject(value)) {
    issues.add(path, `must be an object, got ${typeName(value)}`);
    return undefined;
  }
  const taskId = readString(value, 'taskId', path, issues, true);
  return pushConfigFromV03(
    value.pushNotificationConfig,
    taskId,
    join(path, 'pushNotificationConfig'),
    issues,
  );
}
