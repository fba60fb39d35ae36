/**
 * Messages and parts between 0.3 and 1.0 (rules in docs/compat-0.3.md):
 * - `TextPart` / `FilePart` / `DataPart` with `kind` ↔ the one 1.0 `Part` whose member decides;
 *   `file.uri` ↔ `url`, `file.bytes` ↔ `raw`, `mimeType` ↔ `mediaType`, `name` ↔ `filename`;
 * - what 0.3 cannot hold — a `mediaType` or `filename` on a text or data part, `data` that is not
 *   a JSON object — travels in the part's metadata under {@link V1_PART_KEY}, and is restored
 *   from there, so that 1.0 → 0.3 → 1.0 loses nothing;
 * - roles `user` / `agent` ↔ `ROLE_USER` / `ROLE_AGENT`.
 */

import type { Struct } from '../../../protocol/json.js';
import type { Message, Part, Role } from '../../../protocol/generated/types.js';
import { isObject, UntranslatableError, type Issues } from './untranslatable.js';
import {
  defined,
  join,
  readArray,
  readObject,
  readString,
  readStrings,
  readStruct,
  typeName,
} from './v03-fields.js';
import type { V03Message, V03Part, V03Role } from './v03-types.js';

/** The part metadata key that carries the 1.0 part fields 0.3 has no place for. */
export const V1_PART_KEY = 'a2a.v1';

interface CarriedFields {
  mediaType?: string;
  filename?: string;
  /** `data` was not an object: 0.3 holds it as `{ value }`. */
  wrapped?: boolean;
}

export function roleToV03(role: Role): V03Role {
  switch (role) {
    case 'ROLE_USER':
      return 'user';
    case 'ROLE_AGENT':
      return 'agent';
    case 'ROLE_UNSPECIFIED':
      throw new UntranslatableError('A message without a role has no 0.3 form', [
        { field: 'role', description: 'ROLE_UNSPECIFIED has no 0.3 value (user or agent)' },
      ]);
  }
}

function roleFromV03(value: unknown, path: string, issues: Issues): Role | undefined {
  if (value === 'user') return 'ROLE_USER';
  if (value === 'agent') return 'ROLE_AGENT';
  issues.add(path, `must be "user" or "agent", got ${typeName(value)}`);
  return undefined;
}

function withCarried(
  metadata: Struct | undefined,
  carried: { [K in keyof CarriedFields]: CarriedFields[K] | undefined },
): Struct | undefined {
  const fields = defined(carried);
  if (Object.keys(fields).length === 0) return metadata;
  return { ...metadata, [V1_PART_KEY]: fields as Struct };
}

/** A 1.0 part as 0.3 writes it. */
export function partToV03(part: Part): V03Part {
  const { metadata, mediaType, filename } = part;
  if (part.url !== undefined || part.raw !== undefined) {
    const file =
      part.url !== undefined
        ? defined({ uri: part.url, mimeType: mediaType, name: filename })
        : defined({ bytes: part.raw, mimeType: mediaType, name: filename });
    return defined({ kind: 'file' as const, file, metadata });
  }
  if (part.text !== undefined) {
    const carried = withCarried(metadata, { mediaType, filename });
    return defined({ kind: 'text' as const, text: part.text, metadata: carried });
  }
  const data = part.data;
  const wrapped = !isObject(data);
  const carried = withCarried(metadata, { mediaType, filename, ...(wrapped ? { wrapped } : {}) });
  return defined({
    kind: 'data' as const,
    data: wrapped ? { value: data } : data,
    metadata: carried,
  });
}

/** Takes the carried 1.0 fields out of a 0.3 part's metadata. */
function splitCarried(metadata: Struct | undefined): {
  metadata: Struct | undefined;
  carried: CarriedFields;
} {
  const raw = metadata?.[V1_PART_KEY];
  if (metadata === undefined || !isObject(raw)) return { metadata, carried: {} };
  const rest: Struct = { ...metadata };
  delete rest[V1_PART_KEY];
  const carried: CarriedFields = {};
  if (typeof raw.mediaType === 'string') carried.mediaType = raw.mediaType;
  if (typeof raw.filename === 'string') carried.filename = raw.filename;
  if (raw.wrapped === true) carried.wrapped = true;
  return { metadata: Object.keys(rest).length === 0 ? undefined : rest, carried };
}

/** A 0.3 part (JSON) as a 1.0 part; `undefined` after recording why it cannot be one. */
export function partFromV03(value: unknown, path: string, issues: Issues): Part | undefined {
  if (!isObject(value)) {
    issues.add(path, `must be a part object, got ${typeName(value)}`);
    return undefined;
  }
  const { metadata, carried } = splitCarried(readStruct(value, 'metadata', path, issues));
  const common = { metadata, mediaType: carried.mediaType, filename: carried.filename };
  switch (value.kind) {
    case 'text': {
      const text = readString(value, 'text', path, issues, true);
      return text === undefined ? undefined : defined({ text, ...common });
    }
    case 'file': {
      const file = readObject(value, 'file', path, issues, true);
      if (file === undefined) return undefined;
      const filePath = join(path, 'file');
      const uri = readString(file, 'uri', filePath, issues);
      const bytes = readString(file, 'bytes', filePath, issues);
      const fields = {
        metadata,
        mediaType: readString(file, 'mimeType', filePath, issues),
        filename: readString(file, 'name', filePath, issues),
      };
      if ((uri === undefined) === (bytes === undefined)) {
        issues.add(filePath, 'must hold exactly one of "uri" and "bytes"');
        return undefined;
      }
      return uri !== undefined
        ? defined({ url: uri, ...fields })
        : defined({ raw: bytes, ...fields });
    }
    case 'data': {
      const data = readStruct(value, 'data', path, issues);
      if (data === undefined) {
        if (value.data === undefined || value.data === null) {
          issues.add(join(path, 'data'), 'is required');
        }
        return undefined;
      }
      const unwrapped = carried.wrapped === true && 'value' in data ? data.value : data;
      return defined({ data: unwrapped, ...common });
    }
    default:
      issues.add(
        join(path, 'kind'),
        `must be "text", "file" or "data", got ${typeName(value.kind)}`,
      );
      return undefined;
  }
}

/** A 1.0 message as 0.3 writes it. */
export function messageToV03(message: Message): V03Message {
  return defined({
    kind: 'message' as const,
    messageId: message.messageId,
    role: roleToV03(message.role),
    parts: message.parts.map(partToV03),
    contextId: message.contextId,
    taskId: message.taskId,
    referenceTaskIds: message.referenceTaskIds,
    extensions: message.extensions,
    metadata: message.metadata,
  });
}

/** A 0.3 message (JSON) as a 1.0 message; `undefined` after recording why it cannot be one. */
export function messageFromV03(value: unknown, path: string, issues: Issues): Message | undefined {
  if (!isObject(value)) {
    issues.add(path, `must be a message object, got ${typeName(value)}`);
    return undefined;
  }
  if (value.kind !== undefined && value.kind !== 'message') {
    issues.add(join(path, 'kind'), `must be "message", got ${typeName(value.kind)}`);
  }
  const messageId = readString(value, 'messageId', path, issues, true);
  const role =
    value.role === undefined
      ? (issues.add(join(path, 'role'), 'is required'), undefined)
      : roleFromV03(value.role, join(path, 'role'), issues);
  const parts = readArray(
    value,
    'parts',
    path,
    issues,
    (p, at) => partFromV03(p, at, issues),
    true,
  );
  const message = defined({
    messageId,
    contextId: readString(value, 'contextId', path, issues),
    taskId: readString(value, 'taskId', path, issues),
    role,
    parts,
    metadata: readStruct(value, 'metadata', path, issues),
    extensions: readStrings(value, 'extensions', path, issues),
    referenceTaskIds: readStrings(value, 'referenceTaskIds', path, issues),
  });
  if (messageId === undefined || role === undefined || parts === undefined) return undefined;
  return message as Message;
}
