/**
 * Drives a demo agent through the real runtime (request handler, in-memory store), the way a
 * binding would, and describes stream events compactly so that tests can compare whole sequences.
 */

import type { Message, StreamResponse } from '../../src/index.js';
import {
  createCallContext,
  createRequestHandler,
  type A2ARequestHandler,
  type AgentDefinition,
  type StreamEvent,
} from '../../src/server.js';

export const call = createCallContext();

export interface SendOptions {
  readonly messageId?: string;
  readonly taskId?: string | undefined;
}

/** A `SendMessageRequest` with one text part. */
export function request(text: string, options: SendOptions = {}): { message: Message } {
  const message: Message = {
    messageId: options.messageId ?? crypto.randomUUID(),
    role: 'ROLE_USER',
    parts: [{ text }],
  };
  if (options.taskId !== undefined) message.taskId = options.taskId;
  return { message };
}

export function handlerFor(agent: AgentDefinition): A2ARequestHandler {
  return createRequestHandler({ agent });
}

/** Reads a stream to its end. */
export async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** `task:STATE`, `status:STATE`, `artifact[+append][+last]` or `message`. */
export function describeEvent(payload: StreamResponse): string {
  if (payload.task !== undefined) return `task:${payload.task.status.state}`;
  if (payload.statusUpdate !== undefined) return `status:${payload.statusUpdate.status.state}`;
  if (payload.artifactUpdate !== undefined) {
    const { append, lastChunk } = payload.artifactUpdate;
    return `artifact${append === true ? '+append' : ''}${lastChunk === true ? '+last' : ''}`;
  }
  return 'message';
}

export function describeEvents(events: readonly StreamEvent[]): string[] {
  return events.map((event) => describeEvent(event.payload));
}

/** The artifact updates of a stream, in order. */
export function artifactUpdates(events: readonly StreamEvent[]) {
  return events.flatMap((event) =>
    event.payload.artifactUpdate === undefined ? [] : [event.payload.artifactUpdate],
  );
}

/** Sets environment variables for one test; the returned function restores them. */
export function setEnv(values: Record<string, string>): () => void {
  const saved = Object.fromEntries(Object.keys(values).map((key) => [key, process.env[key]]));
  Object.assign(process.env, values);
  return () => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
}
