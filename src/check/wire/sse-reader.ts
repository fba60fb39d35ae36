/**
 * Reads an event stream the way a browser does (the protocol's `SseDecoder`) while watching for
 * what a browser silently drops: a line that is no SSE field. A stray byte before `data:` turns
 * the line into an unknown field, and the event it carried is lost without a trace on the
 * client's side; the checker reports it. The raw start of the stream is kept for the report.
 */

import { SseDecoder, type SseEvent } from '../../protocol/sse-decoder.js';
import { bodyExcerpt } from './wire-exchange.js';

const FIELDS = new Set(['data', 'event', 'id', 'retry']);

/** How much raw text of the stream the report keeps. */
const RAW_KEPT = 2000;

/** Reads SSE events from a body, one at a time. */
export class SseReader {
  /** Lines that are neither a field, a comment nor blank, as received. */
  readonly strayLines: string[] = [];
  readonly #source: AsyncIterator<Uint8Array>;
  readonly #decoder = new SseDecoder();
  readonly #text = new TextDecoder('utf-8');
  readonly #queue: SseEvent[] = [];
  #partial = '';
  #raw = '';
  #atStart = true;
  #done = false;

  constructor(body: AsyncIterable<Uint8Array>) {
    this.#source = body[Symbol.asyncIterator]();
  }

  /** The start of the stream as received. */
  get raw(): string {
    return bodyExcerpt(this.#raw);
  }

  /** The next event, or `undefined` once the stream has ended. */
  async next(): Promise<SseEvent | undefined> {
    for (;;) {
      const queued = this.#queue.shift();
      if (queued !== undefined) return queued;
      if (this.#done) return undefined;
      const read: IteratorResult<Uint8Array, unknown> = await this.#source.next();
      if (read.done === true) {
        this.#done = true;
        this.#scan(this.#text.decode(), true);
        this.#queue.push(...this.#decoder.end());
        continue;
      }
      const value = read.value;
      this.#scan(this.#text.decode(value, { stream: true }), false);
      this.#queue.push(...this.#decoder.push(value));
    }
  }

  /** Stops reading (the connection is closed by the caller). */
  async cancel(): Promise<void> {
    this.#done = true;
    await this.#source.return?.();
  }

  #scan(text: string, last: boolean): void {
    if (this.#raw.length < RAW_KEPT) this.#raw += text.slice(0, RAW_KEPT - this.#raw.length);
    let chunk = this.#partial + text;
    if (this.#atStart && chunk.length > 0) {
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
      this.#atStart = false;
    }
    const lines = chunk.split(/\r\n|\r|\n/);
    this.#partial = last ? '' : (lines.pop() ?? '');
    for (const line of lines) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      if (!FIELDS.has(field) && this.strayLines.length < 5) this.strayLines.push(line);
    }
  }
}
