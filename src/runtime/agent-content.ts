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

export type { MessageContent };

function toParts(content: MessageContent): Part[] {
  if (typeof content === 'string') return [{ text: content }];
  return Array.isArray(content) ? content : [content];
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
  const candidate: Message = {
    messageId: crypto.randomUUID(),
    role: 'ROLE_AGENT',
    parts: toParts(content),
    contextId: ids.contextId,
  };
  if (ids.taskId !== undefined) candidate.taskId = ids.taskId;
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

/** A validated copy of an artifact, built from content and options or given whole. */
export function artifactOf(
  content: MessageContent | Artifact,
  options: ArtifactUpdateOptions,
): Artifact {
  const candidate: Artifact = isArtifact(content)
    ? { ...content }
    : { artifactId: options.artifactId ?? crypto.randomUUID(), parts: toParts(content) };
  if (options.artifactId !== undefined) candidate.artifactId = options.artifactId;
  if (options.name !== undefined) candidate.name = options.name;
  if (options.description !== undefined) candidate.description = options.description;
  if (options.metadata !== undefined) candidate.metadata = options.metadata;
  if (options.extensions !== undefined) candidate.extensions = options.extensions;
  const parsed = parseMessage('Artifact', candidate, { root: 'artifact' });
  if (!parsed.success) throw invalid('artifact', parsed.violations);
  return parsed.value;
}
