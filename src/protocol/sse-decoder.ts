/**
 * Reads `text/event-stream` bodies incrementally, for clients that cannot use `EventSource`
 * (A2A streams are POST requests with custom headers). Parsing follows the WHATWG HTML event
 * stream interpretation
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation)
 * step for step, so a stream decodes here exactly as a browser would decode it.
 */

import { LocalError } from './local-errors.js';
import { integerOption } from './integer-option.js';

const LF = 0x0a;
const SPACE = 0x20;
const BOM = 0xfeff;

/** The default of {@link SseDecoderOptions.maxEventLength}: 32 Mi characters. */
export const DEFAULT_MAX_EVENT_LENGTH = 32 * 1024 * 1024;

/**
 * The limit a `maxEventLength` option stands for: the default when absent.
 *
 * @throws ConfigurationError unless it is a positive integer.
 */
export function maxEventLengthOf(value: number | undefined): number {
  return integerOption('maxEventLength', value ?? DEFAULT_MAX_EVENT_LENGTH, 1, 'characters');
}

/**
 * A line of the stream, or the data of one event, grew past
 * {@link SseDecoderOptions.maxEventLength}: the stream is treated as broken rather than buffered
 * without end.
 */
export class SseEventTooLargeError extends LocalError {
  constructor(
    /** The limit that was passed, in characters. */
    readonly maxEventLength: number,
    /** The events the chunk completed before the line that passed the limit, in order. */
    readonly events: readonly SseEvent[] = [],
  ) {
    super(
      `A line or the data of an event of the stream is longer than ${maxEventLength} characters`,
    );
  }
}

/** One dispatched event. Fields are present only when the stream set them; see each field. */
export interface SseEvent {
  /** The event's `data:` lines joined with LF. Events without a `data:` line are not dispatched. */
  data: string;
  /**
   * The event type, present when the block set a non-empty one with `event:`. An absent type
   * means `message`; that default is left to the caller so that it can tell the two apart.
   */
  event?: string;
  /** Present when this block had a valid `id:` field (possibly empty, which resets the ID). */
  id?: string;
  /**
   * The last event ID at dispatch time. Unlike `id` it persists across events, which is what
   * a client sends back as `Last-Event-ID` to resume after this event.
   */
  lastEventId: string;
  /** The reconnection time in milliseconds, present when this block had a valid `retry:`. */
  retry?: number;
}

/** Options of `SseDecoder` and `decodeSseStream`. */
export interface SseDecoderOptions {
  /**
   * Receives each comment line without its leading colon and one optional space. Servers send
   * comments as heartbeats, so this is the hook for idle timeouts. Comments never affect events.
   */
  onComment?: (text: string) => void;
  /**
   * The longest line, and the longest data of one event, accepted, in characters (UTF-16 code
   * units). Beyond it `push` throws {@link SseEventTooLargeError}: a peer that never ends its
   * line or its event would otherwise make the decoder buffer without end. Default
   * {@link DEFAULT_MAX_EVENT_LENGTH}.
   */
  maxEventLength?: number;
}

/**
 * Incremental decoder for one event stream. Feed it chunks as they arrive; chunks may split
 * lines, CRLF pairs and UTF-8 sequences anywhere. Work is linear in the input: each chunk is
 * scanned once and a partial line is kept in pieces until its end arrives.
 *
 * The same instance may decode a reconnected stream after `end()`: the last event ID and the
 * reconnection time carry over, everything else starts afresh.
 */
export class SseDecoder {
  private readonly onComment: ((text: string) => void) | undefined;
  private readonly maxEventLength: number;
  /** Characters in `partialLine`. */
  private partialLength = 0;
  private readonly utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
  /** No text decoded yet: a leading BOM is still to be stripped. */
  private atStreamStart = true;
  /** The previous chunk ended in CR, so an LF starting the next one ends no line of its own. */
  private skipLineFeed = false;
  /** Text of the current line received so far, in the chunks it came in. */
  private partialLine: string[] = [];
  private dataBuffer = '';
  /** Whether `dataBuffer` holds at least one line: the spec's "data buffer is not empty". */
  private hasData = false;
  private eventTypeBuffer = '';
  private lastEventIdBuffer = '';
  private blockId: string | undefined = undefined;
  private blockRetry: number | undefined = undefined;
  private committedLastEventId = '';
  private reconnectionTime: number | undefined = undefined;

  constructor(options: SseDecoderOptions = {}) {
    this.onComment = options.onComment;
    this.maxEventLength = maxEventLengthOf(options.maxEventLength);
  }

  /**
   * The last event ID as of the last blank line (the spec's "last event ID string"): what a
   * client sends as `Last-Event-ID` when it reconnects. An `id:` in an unfinished event does
   * not count yet. Empty when no ID has been set.
   */
  get lastEventId(): string {
    return this.committedLastEventId;
  }

  /**
   * The last valid reconnection time in milliseconds, or undefined if the stream never set
   * one. It takes effect as soon as the `retry:` line is read, even if no event follows.
   */
  get retry(): number | undefined {
    return this.reconnectionTime;
  }

  /**
   * Decodes the next chunk and returns the events it completes, in stream order. Bytes are
   * UTF-8 (malformed sequences become U+FFFD); a string chunk is taken as already decoded and
   * first ends any UTF-8 sequence left incomplete by a previous byte chunk.
   *
   * @throws SseEventTooLargeError when a line or an event's data passes `maxEventLength`; it
   *   carries the events the chunk completed before. The stream is then over: the decoder is
   *   reset as by {@link end}, ready for another stream.
   */
  push(chunk: Uint8Array | string): SseEvent[] {
    const events: SseEvent[] = [];
    try {
      if (typeof chunk === 'string') {
        this.feed(this.utf8.decode(), events);
        this.feed(chunk, events);
      } else {
        this.feed(this.utf8.decode(chunk, { stream: true }), events);
      }
    } catch (error) {
      if (!(error instanceof SseEventTooLargeError)) throw error;
      this.end();
      throw new SseEventTooLargeError(this.maxEventLength, events);
    }
    return events;
  }

  /**
   * Ends the stream. The spec discards an event still missing its blank line, so this returns
   * no events (it is an array so that callers treat `push` and `end` alike); it flushes the
   * UTF-8 decoder and drops the unfinished line and event, ready for a new stream.
   */
  end(): SseEvent[] {
    this.utf8.decode();
    this.atStreamStart = true;
    this.skipLineFeed = false;
    this.partialLine = [];
    this.partialLength = 0;
    this.dataBuffer = '';
    this.hasData = false;
    this.eventTypeBuffer = '';
    this.lastEventIdBuffer = this.committedLastEventId;
    this.blockId = undefined;
    this.blockRetry = undefined;
    return [];
  }

  /** Splits decoded text into lines (ended by CRLF, LF or CR) and processes each complete one. */
  private feed(text: string, events: SseEvent[]): void {
    if (text.length === 0) return;
    let pos = 0;
    if (this.atStreamStart) {
      this.atStreamStart = false;
      if (text.charCodeAt(0) === BOM) pos = 1;
    }
    if (this.skipLineFeed) {
      this.skipLineFeed = false;
      if (text.charCodeAt(pos) === LF) pos++;
    }
    // Positions of the next LF and CR at or after `pos`, re-searched only once passed, so the
    // chunk is scanned once in total however many lines it holds.
    let lf = text.indexOf('\n', pos);
    let cr = text.indexOf('\r', pos);
    for (;;) {
      if (lf !== -1 && lf < pos) lf = text.indexOf('\n', pos);
      if (cr !== -1 && cr < pos) cr = text.indexOf('\r', pos);
      const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      if (end === -1) break;
      let line = text.slice(pos, end);
      if (this.partialLine.length > 0) {
        this.partialLine.push(line);
        line = this.partialLine.join('');
        this.partialLine = [];
        this.partialLength = 0;
      }
      this.checkLength(line.length);
      pos = end + 1;
      if (end === cr) {
        if (pos === text.length) this.skipLineFeed = true;
        else if (text.charCodeAt(pos) === LF) pos++;
      }
      this.processLine(line, events);
    }
    if (pos < text.length) {
      this.partialLength += text.length - pos;
      this.checkLength(this.partialLength);
      this.partialLine.push(pos === 0 ? text : text.slice(pos));
    }
  }

  /** Throws once a line, or the data of an event, holds more than the limit. */
  private checkLength(length: number): void {
    if (length > this.maxEventLength) throw new SseEventTooLargeError(this.maxEventLength);
  }

  private processLine(line: string, events: SseEvent[]): void {
    if (line.length === 0) {
      this.dispatch(events);
      return;
    }
    const colon = line.indexOf(':');
    if (colon === 0) {
      if (this.onComment !== undefined) {
        this.onComment(line.slice(line.charCodeAt(1) === SPACE ? 2 : 1));
      }
      return;
    }
    if (colon === -1) {
      this.processField(line, '');
      return;
    }
    const valueStart = line.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1;
    this.processField(line.slice(0, colon), line.slice(valueStart));
  }

  private processField(field: string, value: string): void {
    switch (field) {
      case 'data':
        if (this.hasData) {
          this.checkLength(this.dataBuffer.length + 1 + value.length);
          this.dataBuffer += '\n' + value;
        } else {
          this.dataBuffer = value;
          this.hasData = true;
        }
        return;
      case 'event':
        this.eventTypeBuffer = value;
        return;
      case 'id':
        if (!value.includes('\0')) {
          this.lastEventIdBuffer = value;
          this.blockId = value;
        }
        return;
      case 'retry': {
        const retry = parseDigits(value);
        if (retry !== undefined) {
          this.reconnectionTime = retry;
          this.blockRetry = retry;
        }
        return;
      }
      default:
        return;
    }
  }

  /** The spec's "dispatch the event", run at every blank line. */
  private dispatch(events: SseEvent[]): void {
    this.committedLastEventId = this.lastEventIdBuffer;
    if (this.hasData) {
      const event: SseEvent = { data: this.dataBuffer, lastEventId: this.lastEventIdBuffer };
      if (this.eventTypeBuffer !== '') event.event = this.eventTypeBuffer;
      if (this.blockId !== undefined) event.id = this.blockId;
      if (this.blockRetry !== undefined) event.retry = this.blockRetry;
      events.push(event);
    }
    this.dataBuffer = '';
    this.hasData = false;
    this.eventTypeBuffer = '';
    this.blockId = undefined;
    this.blockRetry = undefined;
  }
}

/**
 * A `retry:` value as the spec reads it: ASCII digits only, base ten. Values too large to hold
 * exactly in a JavaScript number are ignored too, since no timer could honour them.
 */
function parseDigits(value: string): number | undefined {
  if (value.length === 0) return undefined;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x30 || code > 0x39) return undefined;
  }
  const parsed = Number(value);
  return Number.isSafeInteger(parsed) ? parsed : undefined;
}

/**
 * Decodes an event stream from any async iterable of chunks: a fetch `Response.body`
 * (`ReadableStream<Uint8Array>`, where async iteration is supported) or a Node stream alike.
 * Leaving the `for await` early (break, return, throw) returns the source iterator, which
 * cancels the underlying body so the connection is released.
 */
export async function* decodeSseStream(
  source: AsyncIterable<Uint8Array | string>,
  options?: SseDecoderOptions,
): AsyncGenerator<SseEvent, void, undefined> {
  const decoder = new SseDecoder(options);
  for await (const chunk of source) {
    yield* decoder.push(chunk);
  }
  yield* decoder.end();
}
