/**
 * Building blocks for the agents the end-to-end tests define: a card, and helpers to read what
 * came back over the wire.
 */

import type { Message, Task } from '../../../src/index.js';
import type { AgentCardInput } from '../../../src/server.js';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A minimal valid card for a test agent. */
export function testCard(name: string, extra: Partial<AgentCardInput> = {}): AgentCardInput {
  return {
    name,
    description: `End-to-end test agent ${name}`,
    skills: [{ id: 'test', name: 'Test', description: 'Does what the test says', tags: ['test'] }],
    ...extra,
  };
}

/** The text of a message's text parts, joined with newlines. */
export function textOf(message: Message | undefined): string {
  return (message?.parts ?? [])
    .flatMap((part) => (part.text === undefined ? [] : [part.text]))
    .join('\n');
}

/** `role: text` for each history message, for comparing histories at a glance. */
export function historyOf(task: Task): string[] {
  return (task.history ?? []).map(
    (message) => `${message.role === 'ROLE_USER' ? 'user' : 'agent'}: ${textOf(message)}`,
  );
}

/** The texts of every part of every artifact, per artifact. */
export function artifactTexts(task: Task): string[][] {
  return (task.artifacts ?? []).map((artifact) => artifact.parts.map((part) => part.text ?? '?'));
}
