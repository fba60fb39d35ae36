/**
 * `--push-url` and `--push-token` of `send` and `stream`: a push notification config sent with
 * the message (`SendMessageConfiguration.taskPushNotificationConfig`), so that the agent pushes
 * the task's events from its first one, with no separate `tandem push create`.
 */

import type { TaskPushNotificationConfig } from '../index.js';
import { UsageFailure } from './cli-values.js';
import type { OptionTable } from './shared-options.js';

/** The flags of an inline push config. */
export const INLINE_PUSH_OPTIONS = {
  'push-url': { type: 'string' },
  'push-token': { type: 'string' },
} as const satisfies OptionTable;

/** The help text of {@link INLINE_PUSH_OPTIONS}. */
export const INLINE_PUSH_HELP = `  --push-url <webhook>    Also push the task's events to this URL (e.g. \`tandem listen\`'s)
  --push-token <token>    The X-A2A-Notification-Token the agent sends with each push`;

/** The parsed values of {@link INLINE_PUSH_OPTIONS}. */
export interface InlinePushValues {
  readonly 'push-url'?: string | undefined;
  readonly 'push-token'?: string | undefined;
}

/**
 * The config of the flags, or undefined without `--push-url`.
 *
 * @throws UsageFailure for `--push-token` without `--push-url`, or a URL that is not http(s).
 */
export function inlinePushConfigOf(
  values: InlinePushValues,
): TaskPushNotificationConfig | undefined {
  const url = values['push-url'];
  const token = values['push-token'];
  if (url === undefined) {
    if (token !== undefined) throw new UsageFailure('--push-token needs --push-url <webhook>');
    return undefined;
  }
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new UsageFailure(`--push-url must be an absolute http(s) URL, got "${url}"`);
  }
  return { url, ...(token === undefined ? {} : { token }) };
}
