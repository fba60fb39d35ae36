/**
 * From what callers write to what the wire needs: a `messageId` is generated when absent (spec
 * 4.1.4: the message creator sets it, and agents may use it to detect duplicates, so each new
 * message gets a fresh UUID), and the role defaults to `ROLE_USER`.
 */

import type { Message, Part, SendMessageRequest } from '../protocol/generated/types.js';
import type { MessageInput, SendMessageInput, SendOptions } from './a2a-client.js';
import { newUuid } from '../protocol/uuid.js';

/** A complete message. */
export function toMessage(input: MessageInput): Message {
  const { messageId, role, ...rest } = input;
  return {
    ...rest,
    messageId: messageId === undefined || messageId === '' ? newUuid() : messageId,
    role: role ?? 'ROLE_USER',
  };
}

/** A complete `SendMessageRequest`. */
export function toSendMessageRequest(input: SendMessageInput): SendMessageRequest {
  return { ...input, message: toMessage(input.message) };
}

/** The parts of `send` content: a string is one text part. */
export function partsOf(content: string | Part[]): Part[] {
  return typeof content === 'string' ? [{ text: content }] : content;
}

/** The request `send` makes of its content and options. */
export function sendRequestOf(content: string | Part[], options: SendOptions): SendMessageRequest {
  const message: MessageInput = { parts: partsOf(content) };
  if (options.contextId !== undefined) message.contextId = options.contextId;
  if (options.taskId !== undefined) message.taskId = options.taskId;
  if (options.referenceTaskIds !== undefined) message.referenceTaskIds = options.referenceTaskIds;
  const request: SendMessageInput = { message };
  if (options.configuration !== undefined) request.configuration = options.configuration;
  if (options.metadata !== undefined) request.metadata = options.metadata;
  return toSendMessageRequest(request);
}
