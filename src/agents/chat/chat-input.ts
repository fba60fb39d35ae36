/**
 * What of an A2A message a chat model can read: text parts, and image parts (a `url`, or `raw`
 * bytes sent on as a `data:` URL) when the model accepts images. Anything else is refused with
 * `ContentTypeNotSupportedError` naming the part and its media type, before a task exists — the
 * runtime already refuses declared media types the card does not list; this catches parts that
 * declare none (data parts, files without a `mediaType`).
 */

import { ContentTypeNotSupportedError, InvalidParamsError, type Part } from '../../index.js';
import type { ChatContentPart } from './chat-completions.js';
import { IMAGE_MEDIA_TYPES } from './chat-config.js';

function baseType(mediaType: string | undefined): string {
  return mediaType?.toLowerCase().split(';')[0]?.trim() ?? '';
}

function isImageType(mediaType: string | undefined): boolean {
  return (IMAGE_MEDIA_TYPES as readonly string[]).includes(baseType(mediaType));
}

function accepted(images: boolean): string {
  return images ? `text/plain, ${IMAGE_MEDIA_TYPES.join(', ')}` : 'text/plain';
}

function refuse(index: number, what: string, images: boolean, mediaType: string): never {
  throw new ContentTypeNotSupportedError(
    `message.parts[${index}] is ${what}, which this agent does not accept; accepted: ${accepted(images)}`,
    { metadata: { mediaType, field: `message.parts[${index}]` } },
  );
}

/** The model's content part for one A2A part, or a refusal. */
function contentPart(part: Part, index: number, images: boolean): ChatContentPart {
  if (part.text !== undefined) return { type: 'text', text: part.text };
  if (part.data !== undefined) {
    return refuse(index, 'structured data (application/json)', images, 'application/json');
  }
  const mediaType = part.mediaType ?? '';
  if (mediaType === '') {
    return refuse(
      index,
      'a file without a media type (set mediaType, e.g. image/png)',
      images,
      'unspecified',
    );
  }
  if (!images || !isImageType(mediaType))
    return refuse(index, `a ${mediaType} file`, images, mediaType);
  if (part.raw !== undefined) {
    return {
      type: 'image_url',
      image_url: { url: `data:${baseType(mediaType)};base64,${part.raw}` },
    };
  }
  const url = part.url ?? '';
  if (!/^(https?|data):/i.test(url)) {
    throw new InvalidParamsError(
      `message.parts[${index}].url must be an http(s) or data: URL the model server can read`,
      { metadata: { field: `message.parts[${index}].url` } },
    );
  }
  return { type: 'image_url', image_url: { url } };
}

/**
 * The content of a user message for the model: a string when it is text only (what every
 * server accepts), else a list of text and image parts.
 *
 * @throws ContentTypeNotSupportedError for a part the model cannot read;
 *   InvalidParamsError for an image URL of another scheme than http(s) or data.
 */
export function userContentOf(parts: readonly Part[], images: boolean): string | ChatContentPart[] {
  const content = parts.map((part, index) => contentPart(part, index, images));
  if (content.every((part) => part.type === 'text')) {
    return content.map((part) => (part as { text: string }).text).join('\n');
  }
  return content;
}

/**
 * The content of an earlier message of the conversation: what the model can read of it (those
 * messages were accepted then, but the configuration may have changed since), the rest left out.
 */
export function earlierContentOf(
  parts: readonly Part[],
  images: boolean,
): string | ChatContentPart[] {
  const content: ChatContentPart[] = [];
  for (const [index, part] of parts.entries()) {
    try {
      content.push(contentPart(part, index, images));
    } catch {
      content.push({ type: 'text', text: '[an attachment the model cannot read]' });
    }
  }
  if (content.every((part) => part.type === 'text')) {
    return content.map((part) => (part as { text: string }).text).join('\n');
  }
  return content;
}
