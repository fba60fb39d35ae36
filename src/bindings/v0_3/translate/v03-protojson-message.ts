/**
 * Messages, parts and artifacts between the two JSON forms of A2A 0.3: the `kind`-tagged JSON of
 * the JSON-RPC binding (`v03-types.ts`), which the rest of this folder translates to and from 1.0,
 * and the ProtoJSON of the 0.3 proto (`content` for parts, `ROLE_USER`, `fileWithUri`), which the
 * official 0.3 SDKs send over HTTP+JSON and gRPC. Rules (docs/compat-0.3.md):
 *
 * - What the kind-tagged form has and the proto has not (a part's `metadata`, a file's `name`, a
 *   message's `referenceTaskIds`) travels in the owning message's or artifact's `metadata` under
 *   {@link V03_JSON_KEY} and is restored from there, so that nothing is lost either way.
 * - Proto3 defaults read as absent: an empty `contextId`, `taskId`, `mimeType`.
 * - Reading is lenient about the form: a part or message that already has `kind` is taken as
 *   kind-tagged JSON, so that a body written as the 0.3 specification shows it is read too.
 *   Whatever is malformed is passed on as it is, for the kind-tagged translation to report.
 */

import { isObject } from './untranslatable.js';

/** The metadata key that carries the kind-tagged fields the 0.3 proto has no field for. */
export const V03_JSON_KEY = 'a2a.v03.json';

type Json = Record<string, unknown>;

const ROLES_TO_PROTO: Readonly<Record<string, string>> = { user: 'ROLE_USER', agent: 'ROLE_AGENT' };
const ROLES_FROM_PROTO: Readonly<Record<string, string>> = {
  ROLE_USER: 'user',
  ROLE_AGENT: 'agent',
  ROLE_UNSPECIFIED: 'unspecified',
};

/** Copies the members that are set (not `undefined`, and for strings not `''`). */
function present(value: Json): Json {
  const out: Json = {};
  for (const [key, member] of Object.entries(value)) {
    if (member !== undefined && member !== '') out[key] = member;
  }
  return out;
}

function nonEmptyString(value: unknown): unknown {
  return value === '' ? undefined : value;
}

/** The carried fields of one part, by index. */
interface PartExtras {
  metadata?: unknown;
  name?: unknown;
}

interface Carried {
  parts?: Record<string, PartExtras>;
  referenceTaskIds?: unknown;
}

/** Splits the carrier off a ProtoJSON `metadata`. */
function splitMetadata(metadata: unknown): { metadata: unknown; carried: Carried } {
  if (!isObject(metadata) || !isObject(metadata[V03_JSON_KEY])) return { metadata, carried: {} };
  const { [V03_JSON_KEY]: carried, ...rest } = metadata;
  return {
    metadata: Object.keys(rest).length === 0 ? undefined : rest,
    carried: carried,
  };
}

/** Adds the carrier to a `metadata` when there is something to carry. */
function joinMetadata(metadata: unknown, carried: Carried): unknown {
  if (carried.parts === undefined && carried.referenceTaskIds === undefined) return metadata;
  return { ...(isObject(metadata) ? metadata : {}), [V03_JSON_KEY]: present({ ...carried }) };
}

/** A kind-tagged part as ProtoJSON; its `metadata` and file `name` go to `extras`. */
function partToProto(part: unknown, extras: PartExtras): unknown {
  if (!isObject(part)) return part;
  if (part.metadata !== undefined) extras.metadata = part.metadata;
  switch (part.kind) {
    case 'text':
      return { text: part.text };
    case 'data':
      return { data: { data: part.data } };
    case 'file': {
      const file = isObject(part.file) ? part.file : {};
      if (file.name !== undefined) extras.name = file.name;
      return {
        file: present({
          fileWithUri: file.uri,
          fileWithBytes: file.bytes,
          mimeType: file.mimeType,
        }),
      };
    }
    default:
      return part;
  }
}

/** A ProtoJSON part as kind-tagged JSON, with its carried fields. */
function partFromProto(part: unknown, extras: PartExtras | undefined): unknown {
  if (!isObject(part) || typeof part.kind === 'string') return part;
  let out: Json;
  if (part.text !== undefined && part.text !== null) {
    out = { kind: 'text', text: part.text };
  } else if (isObject(part.file)) {
    const file = part.file;
    out = {
      kind: 'file',
      file: present({
        uri: file.fileWithUri ?? file.file_with_uri,
        bytes: file.fileWithBytes ?? file.file_with_bytes,
        mimeType: file.mimeType ?? file.mime_type,
        name: extras?.name,
      }),
    };
  } else if (isObject(part.data)) {
    out = { kind: 'data', data: part.data.data };
  } else {
    return part;
  }
  if (extras?.metadata !== undefined) out.metadata = extras.metadata;
  return out;
}

/** Writes a part list, collecting what each part carries. */
function partsToProto(parts: unknown, carried: Carried): unknown {
  if (!Array.isArray(parts)) return parts;
  const byIndex: Record<string, PartExtras> = {};
  const content = parts.map((part: unknown, index) => {
    const extras: PartExtras = {};
    const written = partToProto(part, extras);
    if (extras.metadata !== undefined || extras.name !== undefined) {
      byIndex[String(index)] = extras;
    }
    return written;
  });
  if (Object.keys(byIndex).length > 0) carried.parts = byIndex;
  return content;
}

function partsFromProto(content: unknown, carried: Carried): unknown {
  if (!Array.isArray(content)) return content;
  const extras = isObject(carried.parts) ? carried.parts : {};
  return content.map((part: unknown, index) => partFromProto(part, extras[String(index)]));
}

/** A kind-tagged 0.3 message as the ProtoJSON of the 0.3 proto's `Message`. */
export function messageToProto(message: unknown): unknown {
  if (!isObject(message)) return message;
  const carried: Carried = {};
  const content = partsToProto(message.parts, carried);
  if (message.referenceTaskIds !== undefined) carried.referenceTaskIds = message.referenceTaskIds;
  return present({
    messageId: message.messageId,
    contextId: message.contextId,
    taskId: message.taskId,
    role: typeof message.role === 'string' ? (ROLES_TO_PROTO[message.role] ?? message.role) : '',
    content,
    metadata: joinMetadata(message.metadata, carried),
    extensions: message.extensions,
  });
}

/** A ProtoJSON 0.3 `Message` as kind-tagged JSON (a kind-tagged one is returned as it is). */
export function messageFromProto(message: unknown): unknown {
  if (!isObject(message) || message.kind !== undefined) return message;
  if (message.content === undefined && message.parts !== undefined) return message;
  const { metadata, carried } = splitMetadata(message.metadata);
  const role = message.role;
  return present({
    kind: 'message',
    messageId: message.messageId ?? message.message_id,
    contextId: nonEmptyString(message.contextId ?? message.context_id),
    taskId: nonEmptyString(message.taskId ?? message.task_id),
    role: typeof role === 'string' ? (ROLES_FROM_PROTO[role] ?? role) : role,
    parts: partsFromProto(message.content ?? [], carried),
    referenceTaskIds: carried.referenceTaskIds,
    metadata,
    extensions: message.extensions,
  });
}

/** A kind-tagged 0.3 artifact as ProtoJSON. */
export function artifactToProto(artifact: unknown): unknown {
  if (!isObject(artifact)) return artifact;
  const carried: Carried = {};
  const parts = partsToProto(artifact.parts, carried);
  return present({
    artifactId: artifact.artifactId,
    name: artifact.name,
    description: artifact.description,
    parts,
    metadata: joinMetadata(artifact.metadata, carried),
    extensions: artifact.extensions,
  });
}

/** A ProtoJSON 0.3 artifact as kind-tagged JSON. */
export function artifactFromProto(artifact: unknown): unknown {
  if (!isObject(artifact)) return artifact;
  const { metadata, carried } = splitMetadata(artifact.metadata);
  return present({
    artifactId: artifact.artifactId ?? artifact.artifact_id,
    name: nonEmptyString(artifact.name),
    description: nonEmptyString(artifact.description),
    parts: partsFromProto(artifact.parts ?? [], carried),
    metadata,
    extensions: artifact.extensions,
  });
}
