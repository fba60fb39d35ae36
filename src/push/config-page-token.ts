/**
 * ListTaskPushNotificationConfigs page tokens: the id of the last config of the previous page,
 * bound to the task, so that a token from another listing is refused rather than misread.
 */

import { decodeBase64, encodeBase64 } from '../protocol/base64.js';
import { InvalidParamsError } from '../protocol/errors.js';

const PREFIX = 'pc1';

/** The token of the page after `afterId`. */
export function encodeConfigPageToken(afterId: string, taskId: string): string {
  return encodeBase64(new TextEncoder().encode(JSON.stringify([PREFIX, taskId, afterId])));
}

/** The id a token continues after; `InvalidParamsError` on `pageToken` when it is not ours. */
export function decodeConfigPageToken(token: string, taskId: string): string {
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(decodeBase64(token)));
    if (
      Array.isArray(value) &&
      value.length === 3 &&
      value[0] === PREFIX &&
      value[1] === taskId &&
      typeof value[2] === 'string'
    ) {
      return value[2];
    }
  } catch {
    // Falls through to the error below.
  }
  throw InvalidParamsError.fromViolations([
    {
      field: 'pageToken',
      description:
        'is not a page token of this task’s push config listing (use nextPageToken as returned)',
    },
  ]);
}
