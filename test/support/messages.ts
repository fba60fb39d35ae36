/**
 * Messages a test sends, and what it reads back of tasks and messages: texts, histories and
 * artifacts in a form that compares at a glance.
 */

import type {
  Message,
  SendMessageConfiguration,
  SendMessageRequest,
  Task,
} from '../../src/index.js';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A user message with one text part (and a fresh `messageId`). */
export function userText(text: string, fields: Partial<Message> = {}): Message {
  return { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...fields };
}

/** A `SendMessageRequest` for `text`. */
export function send(
  text: string,
  fields: Partial<Message> = {},
  configuration?: SendMessageConfiguration,
): SendMessageRequest {
  const request: SendMessageRequest = { message: userText(text, fields) };
  if (configuration !== undefined) request.configuration = configuration;
  return request;
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

/** The ids of `tasks`, in order. */
export function taskIds(tasks: readonly Task[]): string[] {
  return tasks.map((task) => task.id);
}
