/**
 * The JSON-RPC client of the durability suite: one `fetch` per call on loopback, and an SSE
 * parser of its own. It deliberately shares no code with Tandem's client or SSE decoder, so that
 * it can judge them; it keeps each frame's `id:` and the exact bytes of its `result`, which is
 * what resume and replay assertions compare.
 */

import type {
  ListTasksResponse,
  Message,
  SendMessageResponse,
  StreamResponse,
  Task,
  TaskState,
} from '../../../src/index.js';
import { preciseNow } from './sync.js';

/** A JSON-RPC error object as received. */
export interface RpcError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** A JSON-RPC reply: a result or an error, with the raw body. */
export interface RpcReply<T> {
  readonly result?: T;
  readonly error?: RpcError;
  readonly raw: string;
}

/** One SSE frame of a JSON-RPC stream. */
export interface Frame {
  /** The frame's `id:` (the event's sequence number), if it had one. */
  readonly id: number | undefined;
  readonly result: StreamResponse | undefined;
  readonly error: RpcError | undefined;
  /** The `result` member exactly as sent: the stored event's JSON. */
  readonly resultJson: string | undefined;
  /** When the frame was parsed, on {@link preciseNow}'s clock. */
  readonly receivedAt: number;
}

/** An open event stream. */
export interface FrameReader {
  /** The next frame, or `undefined` once the server has ended the stream. */
  next(): Promise<Frame | undefined>;
  /** The next `n` frames; fails if the stream ends first. */
  take(n: number): Promise<Frame[]>;
  /** Every frame until the server ends the stream. */
  rest(): Promise<Frame[]>;
  /** Drops the connection, as a client that goes away. */
  close(): void;
}

const HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };

let nextRequestId = 1;

function post(
  url: string,
  method: string,
  params: unknown,
  headers: Record<string, string>,
  signal?: AbortSignal,
): { id: number; response: Promise<Response> } {
  const id = nextRequestId++;
  const body = JSON.stringify({ jsonrpc: '2.0', id, method, params });
  const init: RequestInit = { method: 'POST', headers: { ...HEADERS, ...headers }, body };
  if (signal !== undefined) init.signal = signal;
  return { id, response: fetch(url, init) };
}

/** Parses SSE text into frames; keeps the unfinished tail for the next chunk. */
class SseParser {
  #buffer = '';

  push(text: string, requestId: number): Frame[] {
    this.#buffer += text.replace(/\r\n?/g, '\n');
    const frames: Frame[] = [];
    for (let end = this.#buffer.indexOf('\n\n'); end !== -1; end = this.#buffer.indexOf('\n\n')) {
      const block = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      let id: number | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('id:')) id = Number(line.slice(3).trim());
        else if (line.startsWith('data:')) data.push(line.slice(line[5] === ' ' ? 6 : 5));
      }
      if (data.length > 0) frames.push(frameOf(id, data.join('\n'), requestId));
    }
    return frames;
  }
}

function frameOf(id: number | undefined, data: string, requestId: number): Frame {
  const parsed = JSON.parse(data) as { result?: StreamResponse; error?: RpcError };
  const prefix = `{"jsonrpc":"2.0","id":${requestId},"result":`;
  const resultJson =
    data.startsWith(prefix) && data.endsWith('}') ? data.slice(prefix.length, -1) : undefined;
  return { id, result: parsed.result, error: parsed.error, resultJson, receivedAt: preciseNow() };
}

/** An error thrown when a streaming call was answered with a JSON body (an error) instead. */
export class NotAStreamError extends Error {
  constructor(
    readonly method: string,
    readonly reply: RpcReply<unknown>,
  ) {
    super(`${method} did not open a stream: ${reply.raw}`);
  }
}

/** The operations a test calls on one agent's JSON-RPC endpoint. */
export class AgentEndpoint {
  constructor(readonly url: string) {}

  /** Any call answered with a JSON body. */
  async call<T = unknown>(
    method: string,
    params: unknown,
    headers: Record<string, string> = {},
  ): Promise<RpcReply<T>> {
    const response = await post(this.url, method, params, headers).response;
    if (response.headers.get('content-type')?.startsWith('text/event-stream') === true) {
      await response.body?.cancel();
      throw new Error(`${method} answered with an event stream where a JSON body was expected`);
    }
    const raw = await response.text();
    const parsed = JSON.parse(raw) as { result?: T; error?: RpcError };
    return { ...parsed, raw };
  }

  /** A call that must succeed. */
  async result<T>(method: string, params: unknown): Promise<T> {
    const reply = await this.call<T>(method, params);
    if (reply.error !== undefined || reply.result === undefined) {
      throw new Error(`${method} failed: ${reply.raw}`);
    }
    return reply.result;
  }

  /** Blocking `SendMessage` that must answer with a task. */
  async sendTask(message: Message, configuration?: Record<string, unknown>): Promise<Task> {
    const params = configuration === undefined ? { message } : { message, configuration };
    const reply = await this.result<SendMessageResponse>('SendMessage', params);
    if (reply.task === undefined) throw new Error(`No task in ${JSON.stringify(reply)}`);
    return reply.task;
  }

  getTask(id: string): Promise<Task> {
    return this.result<Task>('GetTask', { id });
  }

  listTasks(params: Record<string, unknown> = {}): Promise<ListTasksResponse> {
    return this.result<ListTasksResponse>('ListTasks', params);
  }

  cancelTask(id: string): Promise<Task> {
    return this.result<Task>('CancelTask', { id });
  }

  stream(message: Message): Promise<FrameReader> {
    return this.open('SendStreamingMessage', { message });
  }

  /** `SubscribeToTask`, resuming after `lastEventId` when given. */
  subscribe(id: string, lastEventId?: number | string): Promise<FrameReader> {
    const headers: Record<string, string> =
      lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) };
    return this.open('SubscribeToTask', { id }, headers);
  }

  /** Opens a streaming call; throws {@link NotAStreamError} when answered with a JSON body. */
  async open(
    method: 'SendStreamingMessage' | 'SubscribeToTask',
    params: unknown,
    headers: Record<string, string> = {},
  ): Promise<FrameReader> {
    const controller = new AbortController();
    const { id, response: pending } = post(this.url, method, params, headers, controller.signal);
    const response = await pending;
    if (response.headers.get('content-type')?.startsWith('text/event-stream') !== true) {
      const raw = await response.text();
      throw new NotAStreamError(method, { ...(JSON.parse(raw) as object), raw });
    }
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const parser = new SseParser();
    const queue: Frame[] = [];
    let ended = false;
    const next = async (): Promise<Frame | undefined> => {
      while (queue.length === 0 && !ended) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (error) {
          if (controller.signal.aborted) return undefined;
          throw error;
        }
        if (chunk.done) ended = true;
        else queue.push(...parser.push(decoder.decode(chunk.value, { stream: true }), id));
      }
      return queue.shift();
    };
    return {
      next,
      async take(n) {
        const frames: Frame[] = [];
        while (frames.length < n) {
          const frame = await next();
          if (frame === undefined) {
            throw new Error(`The stream ended after ${frames.length} of ${n} frames`);
          }
          frames.push(frame);
        }
        return frames;
      },
      async rest() {
        const frames: Frame[] = [];
        for (let frame = await next(); frame !== undefined; frame = await next()) {
          frames.push(frame);
        }
        return frames;
      },
      close() {
        controller.abort();
      },
    };
  }
}

/** A user message with one text part. */
export function userText(text: string, fields: Partial<Message> = {}): Message {
  return { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...fields };
}

/** The state a frame moves the task to, when it is a status update (or the Task snapshot). */
export function stateOf(frame: Frame | undefined): TaskState | undefined {
  return frame?.result?.statusUpdate?.status.state ?? frame?.result?.task?.status.state;
}

/** The task id a frame is about. */
export function taskIdOf(frame: Frame | undefined): string {
  const r = frame?.result;
  const id = r?.task?.id ?? r?.statusUpdate?.taskId ?? r?.artifactUpdate?.taskId;
  if (id === undefined) throw new Error(`No task id in ${JSON.stringify(frame)}`);
  return id;
}

/** The text parts of the artifact chunks among `frames`, in order. */
export function chunkTexts(frames: readonly Frame[]): string[] {
  return frames.flatMap((frame) =>
    (frame.result?.artifactUpdate?.artifact.parts ?? []).map((part) => part.text ?? '?'),
  );
}

/** The SSE ids of `frames`. */
export function idsOf(frames: readonly Frame[]): (number | undefined)[] {
  return frames.map((frame) => frame.id);
}

/** `n` consecutive integers from `first`. */
export function range(first: number, n: number): number[] {
  return Array.from({ length: n }, (_, i) => first + i);
}

/** The text of a message's text parts, joined with newlines. */
export function textOf(message: Message | undefined): string {
  return (message?.parts ?? []).map((part) => part.text ?? '').join('\n');
}

/** `role: text` per history message. */
export function historyOf(task: Task): string[] {
  return (task.history ?? []).map(
    (m) => `${m.role === 'ROLE_USER' ? 'user' : 'agent'}: ${textOf(m)}`,
  );
}

/** The text parts of every artifact of a task, concatenated per artifact. */
export function artifactParts(task: Task): string[][] {
  return (task.artifacts ?? []).map((a) => a.parts.map((part) => part.text ?? '?'));
}
