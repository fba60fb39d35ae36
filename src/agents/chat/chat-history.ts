/**
 * The conversation the chat agent sends to the model: the system prompt, the earlier exchanges
 * of the message's context, and the message itself.
 *
 * Each A2A context is its own conversation, and its history is the task store's: every earlier
 * COMPLETED task of the context (read with `ctx.contextTasks()`, which sees only the caller's
 * own tasks, of this agent, in the caller's tenant) is one exchange — its user messages, then the
 * text of its artifacts as the assistant's answer (status notes of the agent are left out). A failed or canceled
 * task is left out: its question got no answer. So the conversation survives a restart, is the
 * same on every replica of a shared store, and a new context starts empty.
 *
 * The history is bounded by a {@link HistoryBudget}: at most `maxTurns` exchanges and about
 * `maxTokens` tokens (four characters a token, an image {@link IMAGE_TOKENS}). Whole exchanges
 * are kept, newest first, until the next would pass a limit: the oldest are dropped first.
 */

import type { Message, Task } from '../../index.js';
import type { AgentContext } from '../../server.js';
import type { ChatContentPart, ChatMessage } from './chat-completions.js';
import { IMAGE_TOKENS, type ChatConfig, type HistoryBudget } from './chat-config.js';
import { earlierContentOf } from './chat-input.js';

/** Approximate tokens of one message's content. */
export function tokensOf(content: string | readonly ChatContentPart[]): number {
  if (typeof content === 'string') return Math.ceil(content.length / 4);
  let tokens = 0;
  for (const part of content) {
    tokens += part.type === 'text' ? Math.ceil(part.text.length / 4) : IMAGE_TOKENS;
  }
  return tokens;
}

function textOfParts(message: { parts: Message['parts'] }): string {
  return message.parts.flatMap((part) => (part.text === undefined ? [] : [part.text])).join('');
}

/** One earlier task as messages to the model: what the user said, what the model answered. */
export function exchangeOf(task: Task, images: boolean): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (const message of task.history ?? []) {
    // The agent's own messages are status notes ("cut short at the token limit"), not answers.
    if (message.role === 'ROLE_USER') {
      messages.push({ role: 'user', content: earlierContentOf(message.parts, images) });
    }
  }
  const answer = (task.artifacts ?? [])
    .map((artifact) => textOfParts(artifact))
    .filter((text) => text !== '')
    .join('\n\n');
  if (answer !== '') messages.push({ role: 'assistant', content: answer });
  return messages;
}

/**
 * The earlier exchanges that fit the budget, oldest first, from tasks in any order. Task ids are
 * time-ordered (UUID version 7), so their order is the order the exchanges began in.
 */
export function boundedHistory(
  tasks: readonly Task[],
  budget: HistoryBudget,
  images: boolean,
): ChatMessage[] {
  const newestFirst = tasks
    .filter((task) => task.status.state === 'TASK_STATE_COMPLETED')
    .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  const kept: ChatMessage[][] = [];
  let tokens = 0;
  for (const task of newestFirst) {
    if (kept.length >= budget.maxTurns) break;
    const exchange = exchangeOf(task, images);
    const cost = exchange.reduce((sum, message) => sum + tokensOf(message.content), 0);
    if (tokens + cost > budget.maxTokens) break;
    tokens += cost;
    kept.push(exchange);
  }
  return kept.reverse().flat();
}

/** Everything the model is sent for the message of `ctx`, whose content is `current`. */
export async function conversationOf(
  ctx: AgentContext,
  config: ChatConfig,
  current: string | ChatContentPart[],
): Promise<ChatMessage[]> {
  const messages: ChatMessage[] = [];
  if (config.systemPrompt !== undefined) {
    messages.push({ role: 'system', content: config.systemPrompt });
  }
  if (config.history.maxTurns > 0) {
    // Failed and canceled tasks are read too, and skipped: read some more than the turns kept.
    const limit = Math.min(99, config.history.maxTurns * 2);
    const tasks = await ctx.contextTasks({ limit });
    messages.push(...boundedHistory(tasks, config.history, config.images));
  }
  messages.push({ role: 'user', content: current });
  return messages;
}
