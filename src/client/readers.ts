/**
 * Reading what an agent produced without walking parts by hand. Every reader takes a task, a
 * message, an artifact or a list of parts. A task's output is its artifacts (spec 3.7: results
 * are delivered as artifacts); a task without artifacts reads as its status message, which is
 * where an agent asks its question when it needs input.
 */

import type { JsonValue } from '../protocol/json.js';
import { decodeBase64 } from '../protocol/base64.js';
import type { Artifact, Message, Part, Task } from '../protocol/generated/types.js';

/** Anything that holds parts. */
export type PartSource = Task | Message | Artifact | readonly Part[];

/** A file part, decoded: inline bytes or a URL to fetch, with its name and media type. */
export interface FileOutput {
  readonly name?: string;
  readonly mediaType?: string;
  readonly url?: string;
  readonly bytes?: Uint8Array;
}

function isTask(source: PartSource): source is Task {
  return !Array.isArray(source) && 'status' in source && 'id' in source;
}

/** The parts of a source, in order (see the module documentation for tasks). */
export function partsOf(source: PartSource): readonly Part[] {
  if (Array.isArray(source)) return source as readonly Part[];
  if (isTask(source)) {
    const artifacts = source.artifacts ?? [];
    if (artifacts.length > 0) return artifacts.flatMap((artifact) => artifact.parts);
    return source.status.message?.parts ?? [];
  }
  return (source as Message | Artifact).parts;
}

/** The text parts, joined with newlines; `''` when there are none. */
export function textOf(source: PartSource): string {
  return partsOf(source)
    .flatMap((part) => (part.text === undefined ? [] : [part.text]))
    .join('\n');
}

/** The values of the data parts, in order. */
export function dataOf(source: PartSource): JsonValue[] {
  return partsOf(source).flatMap((part) =>
    'data' in part && part.data !== undefined ? [part.data] : [],
  );
}

/** The file parts (`raw` bytes, decoded, or a `url`), in order. */
export function filesOf(source: PartSource): FileOutput[] {
  const files: FileOutput[] = [];
  for (const part of partsOf(source)) {
    if (part.raw === undefined && part.url === undefined) continue;
    const file: { -readonly [K in keyof FileOutput]: FileOutput[K] } = {};
    if (part.filename !== undefined) file.name = part.filename;
    if (part.mediaType !== undefined) file.mediaType = part.mediaType;
    if (part.url !== undefined) file.url = part.url;
    if (part.raw !== undefined) file.bytes = decodeBase64(part.raw);
    files.push(file);
  }
  return files;
}

/** The artifacts of a task (an empty list when it has none). */
export function artifactsOf(task: Task): Artifact[] {
  return task.artifacts ?? [];
}
