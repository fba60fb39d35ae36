/**
 * Builders for the objects agent and client code writes most: parts, messages and artifacts.
 * Each fills what the spec requires and callers should not have to think about (ids, the role).
 */

import { encodeBase64 } from './base64.js';
import type { Artifact, Message, Part, Role } from './generated/types.js';
import type { JsonValue, Struct, Timestamp } from './json.js';
import { newUuid } from './uuid.js';
import { currentTimestamp } from './timestamps.js';

/** Fields every part may carry besides its content. */
export interface PartOptions {
  mediaType?: string;
  filename?: string;
  metadata?: Struct;
}

function withOptions<T extends Part>(part: T, options: PartOptions | string | undefined): T {
  if (options === undefined) return part;
  if (typeof options === 'string') {
    part.mediaType = options;
    return part;
  }
  if (options.mediaType !== undefined) part.mediaType = options.mediaType;
  if (options.filename !== undefined) part.filename = options.filename;
  if (options.metadata !== undefined) part.metadata = options.metadata;
  return part;
}

/** A text part. */
export function textPart(text: string, options?: PartOptions): Part {
  return withOptions({ text }, options);
}

/** A structured data part; `mediaType` defaults to `application/json`. */
export function dataPart(data: JsonValue, options?: PartOptions): Part {
  return withOptions({ data, mediaType: 'application/json' }, options);
}

/** A file given by URL. The second argument is its media type or a {@link PartOptions}. */
export function fileUrlPart(url: string, options?: PartOptions | string): Part {
  return withOptions({ url }, options);
}

/**
 * A file given inline. Bytes are base64-encoded; a string is taken as already base64-encoded.
 * The second argument is its media type or a {@link PartOptions}.
 */
export function fileBytesPart(bytes: Uint8Array | string, options?: PartOptions | string): Part {
  return withOptions({ raw: typeof bytes === 'string' ? bytes : encodeBase64(bytes) }, options);
}

/** What a message is made of: text, or parts. */
export type MessageContent = string | Part | Part[];

function toParts(content: MessageContent): Part[] {
  if (typeof content === 'string') return [{ text: content }];
  return Array.isArray(content) ? content : [content];
}

/** Optional fields of a message. */
export interface MessageOptions {
  messageId?: string;
  contextId?: string;
  taskId?: string;
  metadata?: Struct;
  extensions?: string[];
  referenceTaskIds?: string[];
}

function message(role: Role, content: MessageContent, options: MessageOptions = {}): Message {
  const built: Message = {
    messageId: options.messageId ?? newUuid(),
    role,
    parts: toParts(content),
  };
  if (options.contextId !== undefined) built.contextId = options.contextId;
  if (options.taskId !== undefined) built.taskId = options.taskId;
  if (options.metadata !== undefined) built.metadata = options.metadata;
  if (options.extensions !== undefined) built.extensions = options.extensions;
  if (options.referenceTaskIds !== undefined) built.referenceTaskIds = options.referenceTaskIds;
  return built;
}

/** A message from the client (`ROLE_USER`) with a fresh `messageId`. */
export function userMessage(content: MessageContent, options?: MessageOptions): Message {
  return message('ROLE_USER', content, options);
}

/** A message from the agent (`ROLE_AGENT`) with a fresh `messageId`. */
export function agentMessage(content: MessageContent, options?: MessageOptions): Message {
  return message('ROLE_AGENT', content, options);
}

/** Optional fields of an artifact. */
export interface ArtifactOptions {
  artifactId?: string;
  name?: string;
  description?: string;
  metadata?: Struct;
  extensions?: string[];
}

/** An artifact with a fresh `artifactId`. */
export function newArtifact(content: MessageContent, options: ArtifactOptions = {}): Artifact {
  const artifact: Artifact = {
    artifactId: options.artifactId ?? newUuid(),
    parts: toParts(content),
  };
  if (options.name !== undefined) artifact.name = options.name;
  if (options.description !== undefined) artifact.description = options.description;
  if (options.metadata !== undefined) artifact.metadata = options.metadata;
  if (options.extensions !== undefined) artifact.extensions = options.extensions;
  return artifact;
}

/** The current instant as a protocol timestamp (ISO-8601 UTC, millisecond precision). */
export function nowTimestamp(): Timestamp {
  return currentTimestamp();
}
