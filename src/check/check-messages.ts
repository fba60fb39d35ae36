/**
 * The messages the checker sends: ids that no two runs share, the text `--message` or the card's
 * examples give, and a task id no agent holds.
 */

import type { Message } from '../protocol/generated/types.js';
import type { CardView } from './card-view.js';
import type { CheckOptions } from './check-types.js';

let sequence = 0;

/** A fresh message id; `prefix` follows the conformance suites' convention where it is given. */
export function messageId(prefix = 'tandem-check'): string {
  sequence++;
  return `${prefix}-${sequence}-${crypto.randomUUID()}`;
}

/** The text of the messages the checker sends: `--message`, else a skill example, else hello. */
export function messageText(context: {
  readonly options: CheckOptions;
  readonly view: CardView;
}): string {
  return context.options.message ?? context.view.examples[0] ?? 'hello';
}

/** A user message of the checker's text. */
export function userMessage(
  context: { readonly options: CheckOptions; readonly view: CardView },
  fields: { readonly prefix?: string; readonly taskId?: string; readonly contextId?: string } = {},
): Message {
  return {
    messageId: messageId(fields.prefix),
    role: 'ROLE_USER',
    parts: [{ text: messageText(context) }],
    ...(fields.taskId === undefined ? {} : { taskId: fields.taskId }),
    ...(fields.contextId === undefined ? {} : { contextId: fields.contextId }),
  };
}

/** An id no agent holds a task under. */
export function unknownTaskId(): string {
  return `tandem-check-unknown-${crypto.randomUUID()}`;
}
