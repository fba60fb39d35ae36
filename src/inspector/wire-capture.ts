/**
 * How the inspector sees the wire without changing the client: the client's `fetch` option for
 * every HTTP exchange (card fetches, JSON-RPC, HTTP+JSON, their streams chunk by chunk), and an
 * interceptor for what has no HTTP exchange (gRPC calls, recorded at the level of operations with
 * their metadata and messages). The interceptor also names the operation of the exchange it
 * wraps, which `fetch` alone cannot tell, through an async context.
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import { grpcStatusOf, isA2AError } from '../index.js';
import type { CallResult, ClientCall, FetchFunction, Interceptor, StreamItem } from '../client.js';
import type { CredentialMask } from './credential-mask.js';
import type { WireEntry } from './inspector-api.js';
import {
  curlCommand,
  tandemCommand,
  type CommandSource,
  type TandemCommandContext,
} from './wire-commands.js';
import type { WireLog } from './wire-log.js';

/** Bodies kept per entry, in characters; the rest is cut (and the entry says so). */
export const WIRE_BODY_LIMIT = 256 * 1024;

/**
 * How often a stream's entry is re-sent to the page while the stream runs, at most: each update
 * carries the body so far, so a long stream updated per chunk would cost the square of its size.
 * The last update, when the stream ends, always goes.
 */
const STREAM_UPDATE_MS = 100;

/** A gate that opens at most once per {@link STREAM_UPDATE_MS}. */
function throttle(): () => boolean {
  let last = -Infinity;
  return () => {
    const now = performance.now();
    if (now - last < STREAM_UPDATE_MS) return false;
    last = now;
    return true;
  };
}

/** The operation an exchange belongs to, set by the interceptor around it. */
interface CallContext {
  readonly operation: string;
  readonly message: Record<string, unknown>;
}

const currentCall = new AsyncLocalStorage<CallContext>();

/** What the capture of one connection needs. */
export interface WireCaptureOptions {
  readonly log: WireLog;
  readonly mask: CredentialMask;
  /** The binding of the connection's interface, once chosen. */
  readonly binding: () => string;
  readonly commands: Omit<TandemCommandContext, 'placeholders'> &
    Pick<TandemCommandContext, 'placeholders'>;
  /** The underlying fetch; the global one by default. */
  readonly fetch?: FetchFunction;
}

/** The client options that capture a connection's wire. */
export interface WireCapture {
  readonly fetch: FetchFunction;
  readonly interceptor: Interceptor;
}

function headerPairs(headers: Headers): Array<readonly [string, string]> {
  const pairs: Array<readonly [string, string]> = [];
  headers.forEach((value, name) => pairs.push([name, value]));
  return pairs;
}

function cut(text: string): { body: string; truncated: boolean } {
  return text.length > WIRE_BODY_LIMIT
    ? { body: text.slice(0, WIRE_BODY_LIMIT), truncated: true }
    : { body: text, truncated: false };
}

/** Creates the capture of one connection. */
export function createWireCapture(options: WireCaptureOptions): WireCapture {
  const { log, mask } = options;
  const underlying = options.fetch ?? ((request: Request) => globalThis.fetch(request));

  const commandsOf = (
    call: CallContext | undefined,
    source: CommandSource | undefined,
  ): Pick<WireEntry, 'curl' | 'tandem'> => ({
    curl:
      source === undefined ? null : mask.text(curlCommand(source, options.commands.placeholders)),
    tandem:
      call === undefined
        ? null
        : (() => {
            const command = tandemCommand(call.operation, call.message, options.commands);
            return command === null ? null : mask.text(command);
          })(),
  });

  const captureFetch: FetchFunction = async (request) => {
    const call = currentCall.getStore();
    const id = log.nextId();
    const started = performance.now();
    const time = new Date().toISOString();
    const body = request.body === null ? null : await request.clone().text();
    const requestHeaders = headerPairs(request.headers);
    const binding =
      call?.operation === 'GetAgentCard' || call === undefined ? 'card' : options.binding();
    const streaming = (request.headers.get('accept') ?? '').includes('text/event-stream');
    const base = {
      id,
      time,
      operation: call?.operation ?? null,
      binding,
      request: {
        method: request.method,
        url: mask.text(request.url),
        headers: mask.headers(requestHeaders),
        body: body === null ? null : mask.text(body),
      },
      ...commandsOf(call, {
        method: request.method,
        url: request.url,
        headers: requestHeaders,
        body,
        streaming,
      }),
    };
    log.put({ ...base, response: null, error: null, durationMs: null });
    let response: Response;
    try {
      response = await underlying(request);
    } catch (error) {
      log.put({
        ...base,
        response: null,
        error: mask.text(error instanceof Error ? error.message : String(error)),
        durationMs: performance.now() - started,
      });
      throw error;
    }
    const responseHeaders = mask.headers(headerPairs(response.headers));
    const isStream = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    const finish = (text: string, more: Partial<WireEntry> = {}): void => {
      const { body: kept, truncated } = cut(text);
      log.put({
        ...base,
        response: {
          status: response.status,
          headers: responseHeaders,
          body: mask.text(kept),
          streaming: false,
          truncated,
        },
        error: null,
        durationMs: performance.now() - started,
        ...more,
      });
    };
    if (!isStream || response.body === null) {
      finish(await response.clone().text());
      return response;
    }
    // A stream: pass each chunk on as it comes, and show the body growing.
    const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const due = throttle();
    const update = (streamingNow: boolean): void => {
      if (streamingNow && !due()) return;
      const { body: kept, truncated } = cut(text);
      log.put({
        ...base,
        response: {
          status: response.status,
          headers: responseHeaders,
          body: mask.text(kept),
          streaming: streamingNow,
          truncated,
        },
        error: null,
        durationMs: streamingNow ? null : performance.now() - started,
      });
    };
    update(true);
    const tapped = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            text += decoder.decode();
            update(false);
            controller.close();
            return;
          }
          text += decoder.decode(value, { stream: true });
          update(true);
          controller.enqueue(value);
        } catch (error) {
          update(false);
          controller.error(error);
        }
      },
      async cancel(reason) {
        update(false);
        await reader.cancel(reason);
      },
    });
    return new Response(tapped, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };

  const interceptor: Interceptor = (next) => async (call: ClientCall) => {
    const context: CallContext = {
      operation: call.operation,
      message: call.message as unknown as Record<string, unknown>,
    };
    if (call.operation === 'GetAgentCard' || options.binding().toUpperCase() !== 'GRPC') {
      return currentCall.run(context, () => next(call));
    }
    return recordGrpc(call, context, next);
  };

  /** A gRPC call as an entry: the method, metadata, messages and status. */
  async function recordGrpc(
    call: ClientCall,
    context: CallContext,
    next: (call: ClientCall) => Promise<CallResult>,
  ): Promise<CallResult> {
    const id = log.nextId();
    const started = performance.now();
    const requestHeaders = headerPairs(call.headers);
    const base = {
      id,
      time: new Date().toISOString(),
      operation: call.operation,
      binding: 'GRPC',
      request: {
        method: 'grpc',
        url: `${call.url} /lf.a2a.v1.A2AService/${call.operation}`,
        headers: mask.headers(requestHeaders),
        body: mask.text(JSON.stringify(call.message, null, 2)),
      },
      ...commandsOf(context, undefined),
    };
    const put = (
      status: string,
      headers: Headers | undefined,
      body: string | null,
      streaming: boolean,
      error: string | null = null,
    ): void =>
      log.put({
        ...base,
        response: {
          status,
          headers: headers === undefined ? [] : mask.headers(headerPairs(headers)),
          body: body === null ? null : mask.text(cut(body).body),
          streaming,
          truncated: body !== null && body.length > WIRE_BODY_LIMIT,
        },
        error,
        durationMs: streaming ? null : performance.now() - started,
      });
    const statusOf = (error: unknown): string =>
      isA2AError(error) ? grpcStatusOf(error.type) : 'UNAVAILABLE';
    const messageOf = (error: unknown): string =>
      mask.text(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
    log.put({ ...base, response: null, error: null, durationMs: null });
    let result: CallResult;
    try {
      result = await currentCall.run(context, () => next(call));
    } catch (error) {
      put(statusOf(error), undefined, null, false, messageOf(error));
      throw error;
    }
    if (!result.stream) {
      put('OK', result.headers, JSON.stringify(result.message ?? null, null, 2), false);
      return result;
    }
    const lines: string[] = [];
    const headers = result.headers;
    const items = result.message;
    const due = throttle();
    put('OK', headers, '', true);
    async function* recorded(): AsyncGenerator<StreamItem, void, undefined> {
      let ended = false;
      try {
        for await (const item of items) {
          lines.push(JSON.stringify({ id: item.id ?? null, event: item.payload }));
          if (due()) put('OK', headers, lines.join('\n'), true);
          yield item;
        }
      } catch (error) {
        ended = true;
        put(statusOf(error), headers, lines.join('\n'), false, messageOf(error));
        throw error;
      } finally {
        // Also when the caller stopped early (it closed the stream): the call is over.
        if (!ended) put('OK', headers, lines.join('\n'), false);
      }
    }
    return { ...result, message: recorded() };
  }

  return { fetch: captureFetch, interceptor };
}
