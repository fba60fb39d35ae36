/**
 * Turns what agent code passes to its context (text, parts, artifacts) into protocol objects the
 * runtime can store. Agent input is an edge like a request: it is validated (a part with two
 * contents or non-base64 bytes must never reach a client) and copied, so that agent code reusing
 * or mutating its own objects later cannot change stored state.
 */

import type { MessageContent } from '../protocol/builders.js';
import type { Artifact, Message, Part } from '../protocol/generated/types.js';
import { UsageError } from '../protocol/local-errors.js';
import { parseMessage } from '../protocol/validation.js';
import type { ArtifactUpdateOptions } from './agent.js';
import { newUuid } from '../protocol/uuid.js';
import { artifactWithParts } from '../protocol/copies.js';

export type { MessageContent };

function toParts(content: MessageContent): Part[] {
  if (typeof content === 'string') return [{ text: content }];
  return Array.isArray(content) ? content : [content];
}

/**
 * Copies parts that are plain text (`{ text }` and nothing else) — what agents emit most — without
 * running the full validator; `undefined` when any part is something else, to validate fully.
 */
function copyPlainTextParts(parts: readonly Part[]): Part[] | undefined {
  if (parts.length === 0) return undefined;
  const copies: Part[] = [];
  for (const part of parts) {
    if (typeof part !== 'object' || part === null) return undefined;
    let keys = 0;
    for (const key in part) {
      if (key !== 'text') return undefined;
      keys++;
    }
    const text = part.text;
    if (keys !== 1 || typeof text !== 'string') return undefined;
    copies.push({ text });
  }
  return copies;
}

function invalid(what: string, violations: { field: string; description: string }[]): UsageError {
  const list = violations.map((v) => `${v.field}: ${v.description}`).join('; ');
  return new UsageError(`The agent produced an invalid ${what}: ${list}`);
}

/** An agent message with a fresh id, bound to the task and context. */
export function agentMessageOf(
  content: MessageContent,
  ids: { readonly taskId?: string; readonly contextId: string },
): Message {
  const parts = toParts(content);
  const plain = copyPlainTextParts(parts);
  const candidate: Message = {
    messageId: newUuid(),
    role: 'ROLE_AGENT',
    parts: plain ?? parts,
    contextId: ids.contextId,
  };
  if (ids.taskId !== undefined) candidate.taskId = ids.taskId;
  if (plain !== undefined) return candidate;
  const parsed = parseMessage('Message', candidate, { root: 'message' });
  if (!parsed.success) throw invalid('message', parsed.violations);
  return parsed.value;
}

function isArtifact(content: MessageContent | Artifact): content is Artifact {
  return (
    typeof content === 'object' &&
    !Array.isArray(content) &&
    'artifactId' in content &&
    'parts' in content
  );
}

/** An artifact with only string fields besides its parts (their check is then trivial). */
function isPlainArtifact(artifact: Artifact): boolean {
  for (const key in artifact) {
    const value = (artifact as unknown as Record<string, unknown>)[key];
    if (key === 'parts') continue;
    if (key !== 'artifactId' && key !== 'name' && key !== 'description') return false;
    if (typeof value !== 'string') return false;
  }
  return typeof artifact.artifactId === 'string' && artifact.artifactId !== '';
}

/** A validated copy of an artifact, built from content and options or given whole. */
export function artifactOf(
  content: MessageContent | Artifact,
  options: ArtifactUpdateOptions,
): Artifact {
  const candidate: Artifact = isArtifact(content)
    ? { ...content }
    : { artifactId: options.artifactId ?? newUuid(), parts: toParts(content) };
  if (options.artifactId !== undefined) candidate.artifactId = options.artifactId;
  if (options.name !== undefined) candidate.name = options.name;
  if (options.description !== undefined) candidate.description = options.description;
  if (options.metadata !== undefined) candidate.metadata = options.metadata;
  if (options.extensions !== undefined) candidate.extensions = options.extensions;
  if (isPlainArtifact(candidate)) {
    const plain = copyPlainTextParts(candidate.parts);
    if (plain !== undefined) return artifactWithParts(candidate, plain);
  }
  const parsed = parseMessage('Artifact', candidate, { root: 'artifact' });
  if (!parsed.success) throw invalid('artifact', parsed.violations);
  return parsed.value;
}
