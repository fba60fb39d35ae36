/**
 * The message `send` and `stream` build from their command line: the words after the URL as one
 * text part, each `--file` as a raw file part (its media type guessed from the extension), and
 * `--context` / `--task` to continue a conversation or a task that asked for input.
 */

import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { fileBytesPart, userMessage, type Message, type Part } from '../index.js';
import { UsageFailure } from './cli-values.js';
import type { OptionTable } from './shared-options.js';

/** The flags of a message. */
export const MESSAGE_OPTIONS = {
  file: { type: 'string', multiple: true },
  context: { type: 'string' },
  task: { type: 'string' },
} as const satisfies OptionTable;

/** The help text of {@link MESSAGE_OPTIONS}. */
export const MESSAGE_HELP = `  --file <path>           Attach a file (raw bytes; media type from the extension); repeatable
  --context <id>          Send within this context (a conversation)
  --task <id>             Continue this task, e.g. one that asked for input`;

const MEDIA_TYPES: Readonly<Record<string, string>> = {
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.csv': 'text/csv',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.gz': 'application/gzip',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  '.ogg': 'audio/ogg',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
};

/** The media type of a file name, `application/octet-stream` when the extension is unknown. */
export function mediaTypeOf(path: string): string {
  return MEDIA_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

/** Reads a file into a raw part named after it. */
export async function filePart(path: string): Promise<Part> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new UsageFailure(`--file ${path} cannot be read (${reason})`);
  }
  return fileBytesPart(bytes, { mediaType: mediaTypeOf(path), filename: basename(path) });
}

/** The parsed values of {@link MESSAGE_OPTIONS}. */
export interface MessageValues {
  readonly file?: string[] | undefined;
  readonly context?: string | undefined;
  readonly task?: string | undefined;
}

/** Builds the message: text from the words, files from `--file`; at least one of them. */
export async function buildMessage(
  values: MessageValues,
  words: readonly string[],
): Promise<Message> {
  const text = words.join(' ');
  const files = values.file ?? [];
  if (text.trim() === '' && files.length === 0) {
    throw new UsageFailure('missing <text> (or --file)');
  }
  const parts: Part[] = text === '' ? [] : [{ text }];
  for (const path of files) parts.push(await filePart(path));
  return userMessage(parts, {
    ...(values.context === undefined ? {} : { contextId: values.context }),
    ...(values.task === undefined ? {} : { taskId: values.task }),
  });
}
