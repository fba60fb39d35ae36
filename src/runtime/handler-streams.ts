/**
 * The event streams one request handler has open. A handler opens every stream it answers with
 * here, so that its shutdown can let them finish and then close the rest; the streams of other
 * handlers over the same runtime are theirs.
 */

import type { EventStream } from './request-handler.js';
import type { StreamEvent } from './stream-event.js';
import { TaskEventStream, type TaskEventStreamOptions } from './task-event-stream.js';
import { waitAtMost } from './wait-at-most.js';

/** Where a stream starts: after `afterSeq`, with `first` ahead of the log's events. */
export type StreamPosition = Pick<TaskEventStreamOptions, 'afterSeq' | 'first' | 'catchUp'>;

/** What every stream of a handler reads from. */
export type HandlerStreamSources = Pick<
  TaskEventStreamOptions,
  'store' | 'hub' | 'logger' | 'bufferSize'
>;

/** The open streams of one handler. */
export class HandlerStreams {
  readonly #sources: HandlerStreamSources;
  readonly #open = new Set<TaskEventStream>();

  constructor(sources: HandlerStreamSources) {
    this.#sources = sources;
  }

  /** Opens a stream of `taskId`'s events; it leaves this set when it closes. */
  open(taskId: string, position: StreamPosition): TaskEventStream {
    const sources = this.#sources;
    // Spelled out rather than spread: an object built from spreads gets a hidden class of its
    // own, a dictionary the stream keeps for its whole life (about 0.4 KB per open stream).
    const stream: TaskEventStream = new TaskEventStream({
      store: sources.store,
      hub: sources.hub,
      logger: sources.logger,
      bufferSize: sources.bufferSize,
      taskId,
      afterSeq: position.afterSeq,
      first: position.first,
      catchUp: position.catchUp,
      onClose: () => this.#open.delete(stream),
    });
    this.#open.add(stream);
    return stream;
  }

  /**
   * Gives the open streams up to `waitMs` to end by themselves (a stream ends after its task's
   * final event, once its client has read it), then closes the ones left, such as the streams
   * of interrupted tasks.
   */
  async close(waitMs: number): Promise<void> {
    const streams = [...this.#open];
    await waitAtMost(Promise.all(streams.map((stream) => stream.closed)), waitMs);
    await Promise.all([...this.#open].map((stream) => stream.return()));
  }
}

/** A stream of at most one event: a message answer, or nothing left to resume. */
export function singleEvent(event: StreamEvent | undefined): EventStream {
  return {
    async *[Symbol.asyncIterator]() {
      if (event !== undefined) yield await Promise.resolve(event);
    },
  };
}
