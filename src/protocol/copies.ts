/**
 * Shallow copies of protocol objects with one field replaced, written out field by field. On hot
 * paths these are several times faster than object spreads, whose cost grows when the copied
 * objects have varying shapes (optional fields present or not), as protocol objects do.
 */

import type { Artifact, Message, Part } from './generated/types.js';

/** A copy of `artifact` with `parts` in place of its parts, fields in proto order. */
export function artifactWithParts(artifact: Artifact, parts: Part[]): Artifact {
  const copy: Artifact = { artifactId: artifact.artifactId, parts };
  if (artifact.name !== undefined) copy.name = artifact.name;
  if (artifact.description !== undefined) copy.description = artifact.description;
  if (artifact.metadata !== undefined) copy.metadata = artifact.metadata;
  if (artifact.extensions !== undefined) copy.extensions = artifact.extensions;
  return copy;
}

/** A copy of `message` bound to a task and context. */
export function messageInTask(message: Message, taskId: string, contextId: string): Message {
  const copy: Message = {
    messageId: message.messageId,
    contextId,
    taskId,
    role: message.role,
    parts: message.parts,
  };
  if (message.metadata !== undefined) copy.metadata = message.metadata;
  if (message.extensions !== undefined) copy.extensions = message.extensions;
  if (message.referenceTaskIds !== undefined) copy.referenceTaskIds = message.referenceTaskIds;
  return copy;
}
