/**
 * The message the Chat view's composer describes: its parts checked one by one (which part, which
 * field, why), then built with the protocol's builders, so that what is sent is exactly what the
 * wire view shows.
 */

import {
  dataPart,
  fileBytesPart,
  fileUrlPart,
  parseMessage,
  textPart,
  userMessage,
  type JsonValue,
  type Message,
  type Part,
} from '../index.js';
import { InspectorInputError } from './inspector-errors.js';

/** Part `index` of the page's `parts`, checked and built. */
function partOf(value: unknown, index: number): Part {
  const at = `parts[${index}]`;
  if (typeof value !== 'object' || value === null) {
    throw new InspectorInputError(`${at} must be an object with a kind`);
  }
  const part = value as Record<string, unknown>;
  const text = (name: string, required: boolean): string | undefined => {
    const field = part[name];
    if (field === undefined || field === '') {
      if (required) throw new InspectorInputError(`${at}.${name} is required`);
      return undefined;
    }
    if (typeof field !== 'string') throw new InspectorInputError(`${at}.${name} must be a string`);
    return field;
  };
  switch (part.kind) {
    case 'text':
      return textPart(text('text', true) ?? '');
    case 'file': {
      const bytes = text('bytes', false) ?? '';
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(bytes)) {
        throw new InspectorInputError(`${at}.bytes must be base64`);
      }
      const mediaType = text('mediaType', false);
      return fileBytesPart(bytes, {
        filename: text('filename', true) ?? '',
        ...(mediaType === undefined ? {} : { mediaType }),
      });
    }
    case 'url': {
      const url = text('url', true) ?? '';
      if (!URL.canParse(url)) throw new InspectorInputError(`${at}.url is not a URL`);
      const filename = text('filename', false);
      const mediaType = text('mediaType', false);
      return fileUrlPart(url, {
        ...(filename === undefined ? {} : { filename }),
        ...(mediaType === undefined ? {} : { mediaType }),
      });
    }
    case 'data':
      if (!('data' in part) || part.data === undefined) {
        throw new InspectorInputError(`${at}.data is required (any JSON value)`);
      }
      return dataPart(part.data as JsonValue);
    default:
      throw new InspectorInputError(
        `${at}.kind must be text, file, url or data; got ${JSON.stringify(part.kind)}`,
      );
  }
}

/**
 * The user message of the composer's parts, continuing `taskId` / `contextId` when given.
 *
 * @throws InspectorInputError naming the part and field that is wrong.
 */
export function composerMessage(
  parts: unknown,
  options: { taskId?: string | undefined; contextId?: string | undefined },
): Message {
  if (!Array.isArray(parts) || parts.length === 0) {
    throw new InspectorInputError('parts must hold at least one part (text, file, url or data)');
  }
  const message = userMessage(parts.map(partOf), {
    ...(options.taskId === undefined ? {} : { taskId: options.taskId }),
    ...(options.contextId === undefined ? {} : { contextId: options.contextId }),
  });
  const checked = parseMessage('Message', message, { root: 'message' });
  if (!checked.success) {
    const first = checked.violations[0];
    throw new InspectorInputError(
      `The message is not valid: ${first === undefined ? 'unknown' : `${first.field}: ${first.description}`}`,
    );
  }
  return message;
}
