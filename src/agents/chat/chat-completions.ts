/**
 * A call to `POST {baseUrl}/chat/completions` of an OpenAI-compatible server (llama.cpp, Ollama,
 * vLLM, LM Studio, hosted APIs), with Node's global `fetch`: the request is plain JSON and the
 * stream plain Server-Sent Events, which the protocol's own decoder reads, so no SDK is needed.
 *
 * The answer is an async iterable of text pieces: the tokens as the model streams them, or the
 * whole answer at once. Every failure — no connection, an error status, no answer in time, a
 * stream that stops before its end or holds something that is not a chunk — is a
 * {@link ModelError} whose message is safe to show. An abort of the caller's signal aborts the
 * request at once (the socket is closed) and rejects with the signal's reason.
 */

import { decodeSseStream, type SseEvent } from '../../codecs.js';
import {
  ModelError,
  connectionFailure,
  errorMessageOf,
  safeDetail,
  statusFailure,
  type Secrets,
} from './model-error.js';

/** A content part of a user message (OpenAI's vision format). */
export type ChatContentPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image_url'; readonly image_url: { readonly url: string } };

/** One message of the conversation sent to the model. */
export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string | readonly ChatContentPart[];
}

/** The endpoint and the parameters of every request. */
export interface ChatModelOptions {
  /** The API base URL, without a trailing slash. */
  readonly baseUrl: string;
  readonly model: string;
  /** Sent as `Authorization: Bearer`; nowhere else. */
  readonly apiKey: string | undefined;
  readonly temperature: number | undefined;
  readonly maxTokens: number | undefined;
  readonly stream: boolean;
  /** Longest wait for the answer to start, and then for each next chunk, in ms. */
  readonly timeoutMs: number;
}

/** How the answer ended, filled in as it streams. */
export interface ChatOutcome {
  /** The model's `finish_reason` (`stop`, `length`, `content_filter`...), once it gave one. */
  finishReason?: string;
}

/** Resets on every sign of life; aborts its signal when the model has been silent too long. */
class IdleTimer {
  readonly #controller = new AbortController();
  readonly #ms: number;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(ms: number) {
    this.#ms = ms;
    this.touch();
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get fired(): boolean {
    return this.#controller.signal.aborted;
  }

  touch(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#controller.abort(new ModelError('timeout')), this.#ms);
  }

  stop(): void {
    clearTimeout(this.#timer);
  }
}

function requestBody(options: ChatModelOptions, messages: readonly ChatMessage[]): string {
  const body: Record<string, unknown> = { model: options.model, messages, stream: options.stream };
  if (options.temperature !== undefined) body.temperature = options.temperature;
  if (options.maxTokens !== undefined) body.max_tokens = options.maxTokens;
  return JSON.stringify(body);
}

function silence(options: ChatModelOptions, started: boolean): ModelError {
  const seconds = Math.round(options.timeoutMs / 100) / 10;
  return new ModelError(
    started
      ? `The model stopped sending for ${seconds}s in the middle of its answer`
      : `The model server did not answer within ${seconds}s`,
  );
}

/** The text pieces of one chunk of a stream, and whether it ended the answer. */
function readChunk(
  event: SseEvent,
  secrets: Secrets,
): { readonly text: string | undefined; readonly finish: string | undefined } {
  let chunk: unknown;
  try {
    chunk = JSON.parse(event.data);
  } catch {
    throw new ModelError('The model server sent a malformed stream chunk (not JSON)');
  }
  if (typeof chunk !== 'object' || chunk === null) {
    throw new ModelError('The model server sent a malformed stream chunk (not an object)');
  }
  const error = errorMessageOf(chunk);
  if (error !== undefined) {
    throw new ModelError(
      `The model failed in the middle of its answer: ${safeDetail(error, secrets)}`,
    );
  }
  const choices = (chunk as { choices?: unknown }).choices;
  if (choices === undefined) return { text: undefined, finish: undefined }; // e.g. a usage chunk
  if (!Array.isArray(choices)) {
    throw new ModelError('The model server sent a malformed stream chunk (choices is not a list)');
  }
  const choice = choices[0] as
    { delta?: { content?: unknown }; finish_reason?: unknown } | undefined;
  if (choice === undefined) return { text: undefined, finish: undefined };
  const content = choice.delta?.content;
  if (content !== undefined && content !== null && typeof content !== 'string') {
    throw new ModelError('The model server sent a malformed stream chunk (content is not text)');
  }
  const finish =
    typeof choice.finish_reason === 'string' && choice.finish_reason !== ''
      ? choice.finish_reason
      : undefined;
  return { text: typeof content === 'string' && content !== '' ? content : undefined, finish };
}

/** The answer of a response that is not a stream. */
function readCompletion(text: string, secrets: Secrets, outcome: ChatOutcome): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ModelError('The model server answered something that is not JSON');
  }
  const error = typeof body === 'object' && body !== null ? errorMessageOf(body) : undefined;
  if (error !== undefined) throw new ModelError(`The model failed: ${safeDetail(error, secrets)}`);
  const choices = (body as { choices?: unknown } | null)?.choices;
  const choice = Array.isArray(choices)
    ? (choices[0] as { message?: { content?: unknown }; finish_reason?: unknown } | undefined)
    : undefined;
  const content = choice?.message?.content;
  if (typeof choice?.finish_reason === 'string') outcome.finishReason = choice.finish_reason;
  if (typeof content !== 'string') {
    throw new ModelError('The model server answered something that is not a chat completion');
  }
  return content;
}

/** Each chunk of a body, telling the timer the model is alive. */
async function* touching(
  body: AsyncIterable<Uint8Array>,
  timer: IdleTimer,
): AsyncGenerator<Uint8Array> {
  for await (const chunk of body) {
    timer.touch();
    yield chunk;
  }
}

/**
 * Sends the conversation and yields the answer's text as it comes; `outcome` learns how it ended.
 *
 * @throws ModelError for every failure of the model server; the signal's reason on abort.
 */
export async function* completeChat(
  options: ChatModelOptions,
  messages: readonly ChatMessage[],
  signal: AbortSignal,
  outcome: ChatOutcome = {},
): AsyncGenerator<string, void, undefined> {
  const secrets: Secrets = { apiKey: options.apiKey, baseUrl: options.baseUrl };
  const timer = new IdleTimer(options.timeoutMs);
  const both = AbortSignal.any([signal, timer.signal]);
  let started = false;
  /** Failures of the wire: the caller's abort passes through, silence becomes a ModelError. */
  const failure = (error: unknown, fallback: () => ModelError): unknown => {
    if (signal.aborted) return signal.reason;
    if (timer.fired) return silence(options, started);
    return error instanceof ModelError ? error : fallback();
  };
  try {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: options.stream ? 'text/event-stream' : 'application/json',
    };
    if (options.apiKey !== undefined) headers.authorization = `Bearer ${options.apiKey}`;
    let response: Response;
    try {
      response = await fetch(`${options.baseUrl}/chat/completions`, {
        method: 'POST',
        headers,
        body: requestBody(options, messages),
        signal: both,
      });
    } catch (error) {
      throw failure(error, () => connectionFailure(error));
    }
    timer.touch();
    const closedEarly = () =>
      new ModelError('The model server closed the connection before the answer was complete');
    if (!response.ok) {
      let text = '';
      try {
        text = await response.text();
      } catch (error) {
        throw failure(error, () => statusFailure(response.status, '', secrets));
      }
      throw statusFailure(response.status, text, secrets);
    }
    const type = response.headers.get('content-type') ?? '';
    if (!options.stream || !type.includes('text/event-stream') || response.body === null) {
      let text: string;
      try {
        text = await response.text();
      } catch (error) {
        throw failure(error, closedEarly);
      }
      yield readCompletion(text, secrets, outcome);
      return;
    }
    let done = false;

    try {
      for await (const event of decodeSseStream(touching(response.body, timer))) {
        if (event.data === '[DONE]') {
          done = true;
          break;
        }
        const chunk = readChunk(event, secrets);
        if (chunk.finish !== undefined) outcome.finishReason = chunk.finish;
        if (chunk.text !== undefined) {
          started = true;
          yield chunk.text;
        }
      }
    } catch (error) {
      throw failure(error, closedEarly);
    }
    if (!done && outcome.finishReason === undefined) {
      throw new ModelError('The model stopped its stream before the answer was complete');
    }
  } finally {
    timer.stop();
  }
}
