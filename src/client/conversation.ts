/**
 * A multi-turn conversation (spec 3.4): the first answer's `contextId` is kept and sent with every
 * later message, and a task that stopped in an interrupted state (`INPUT_REQUIRED`,
 * `AUTH_REQUIRED`) is continued by the next message (its `taskId`), as spec 3.4.3 describes. A
 * task that ended leaves the context open: the next message starts a new task in it.
 */

import type { Message, Part, StreamResponse, Task } from '../protocol/generated/types.js';
import { isInterruptedState } from '../protocol/task-state.js';
import type { A2AClient, CallOptions, Conversation, SendOptions } from './a2a-client.js';
import { sendRequestOf } from './to-message.js';
import { StreamOutcome } from './stream-outcome.js';

/** Narrows an answer to a task. */
export function isTask(value: Task | Message): value is Task {
  return 'status' in value;
}

export class ClientConversation implements Conversation {
  readonly #client: A2AClient;
  #contextId: string | undefined;
  #pendingTask: Task | undefined;

  constructor(client: A2AClient, contextId?: string) {
    this.#client = client;
    this.#contextId = contextId;
  }

  get contextId(): string | undefined {
    return this.#contextId;
  }

  get pendingTask(): Task | undefined {
    return this.#pendingTask;
  }

  async send(content: string | Part[], options: CallOptions = {}): Promise<Task | Message> {
    const result = await this.#client.send(content, this.#sendOptions(options));
    this.#track(result);
    return result;
  }

  async *stream(
    content: string | Part[],
    options: CallOptions = {},
  ): AsyncGenerator<StreamResponse> {
    const request = sendRequestOf(content, this.#sendOptions(options));
    const outcome = new StreamOutcome();
    try {
      for await (const event of this.#client.sendStreamingMessage(request, options)) {
        outcome.apply(event);
        yield event;
      }
    } finally {
      const current = outcome.current;
      if (current !== undefined) this.#track(current);
    }
  }

  #sendOptions(options: CallOptions): SendOptions {
    const sendOptions: { -readonly [K in keyof SendOptions]: SendOptions[K] } = { ...options };
    if (this.#contextId !== undefined) sendOptions.contextId = this.#contextId;
    if (this.#pendingTask !== undefined) sendOptions.taskId = this.#pendingTask.id;
    return sendOptions;
  }

  #track(result: Task | Message): void {
    if (result.contextId !== undefined && result.contextId !== '')
      this.#contextId = result.contextId;
    this.#pendingTask =
      isTask(result) && isInterruptedState(result.status.state) ? result : undefined;
  }
}
