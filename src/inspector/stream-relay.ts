/**
 * A stream of the agent's events relayed to the page as NDJSON, one {@link StreamLine} per line,
 * each event with the id the agent gave it. The client hands out events without their ids and
 * resumes dropped streams by itself, so an interceptor notes both where only it can see them:
 * the id of each event as it passes, and each `SubscribeToTask` that resumes after a
 * `Last-Event-ID`, told to the relay whose stream it belongs to through an async context.
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerResponse } from 'node:http';
import type { StreamResponse } from '../index.js';
import type { Interceptor, StreamItem } from '../client.js';
import type { FailureView, StreamLine } from './inspector-api.js';

/** The relay a stream call belongs to. */
interface RelayContext {
  onResume(lastEventId: string, taskId: string): void;
}

const currentRelay = new AsyncLocalStorage<RelayContext>();

/** Event ids by event, filled as the events pass the interceptor. */
export type EventIds = WeakMap<StreamResponse, string>;

/** The interceptor that notes event ids and resumed connections. */
export function eventIdInterceptor(ids: EventIds): Interceptor {
  return (next) => async (call) => {
    if (!call.stream) return next(call);
    if (call.lastEventId !== undefined && call.operation === 'SubscribeToTask') {
      currentRelay.getStore()?.onResume(call.lastEventId, call.message.id);
    }
    const result = await next(call);
    if (!result.stream) return result;
    const items = result.message;
    async function* noted(): AsyncGenerator<StreamItem, void, undefined> {
      for await (const item of items) {
        if (item.id !== undefined) ids.set(item.payload, item.id);
        yield item;
      }
    }
    return { ...result, message: noted() };
  };
}

/** Writes NDJSON lines to the page. */
export class NdjsonWriter {
  readonly #response: ServerResponse;

  constructor(response: ServerResponse) {
    this.#response = response;
    response.writeHead(200, {
      'content-type': 'application/x-ndjson; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
    response.flushHeaders();
  }

  write(line: unknown): void {
    if (!this.#response.writableEnded) this.#response.write(`${JSON.stringify(line)}\n`);
  }

  end(): void {
    if (!this.#response.writableEnded) this.#response.end();
  }
}

/** What {@link relayStream} needs. */
export interface RelayOptions {
  readonly writer: NdjsonWriter;
  readonly ids: EventIds;
  /** Opens the stream; called inside the relay's context. */
  readonly open: (signal: AbortSignal) => AsyncIterable<StreamResponse>;
  /** Aborts when the page goes away. */
  readonly signal: AbortSignal;
  readonly describe: (error: unknown) => FailureView;
  /** Lines to write before the first event. */
  readonly first?: readonly StreamLine[];
}

/** Relays one stream to its end (or the page's leaving), then ends the response. */
export async function relayStream(options: RelayOptions): Promise<void> {
  const { writer, ids } = options;
  const line = (value: StreamLine): void => writer.write(value);
  for (const value of options.first ?? []) line(value);
  const context: RelayContext = {
    onResume: (lastEventId, taskId) =>
      line({ kind: 'resumed', time: new Date().toISOString(), lastEventId, taskId }),
  };
  try {
    await currentRelay.run(context, async () => {
      for await (const payload of options.open(options.signal)) {
        line({
          kind: 'event',
          eventId: ids.get(payload) ?? null,
          time: new Date().toISOString(),
          payload,
        });
      }
    });
    line({ kind: 'end' });
  } catch (error) {
    if (!options.signal.aborted) line({ kind: 'error', failure: options.describe(error) });
  } finally {
    writer.end();
  }
}
