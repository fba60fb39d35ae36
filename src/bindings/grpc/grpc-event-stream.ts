/**
 * A runtime event stream as a gRPC server stream (spec 10.7): one `StreamResponse` message per
 * event, back-pressure from the HTTP/2 stream (a `write` that answers `false` holds the runtime's
 * events until `drain`), and the status that ends it — `OK`, or the error that broke the stream
 * as a status with its details. A client that cancels the call (or goes away) releases the
 * runtime subscription at once; the task goes on.
 *
 * An event delivered to several streams (the runtime's fan-out hands each the same object) is
 * encoded once.
 *
 * Event ids (`grpc-event-ids.ts`): the id of the first event goes out as a response header, and
 * the stream checks, as it sends, that each event follows its predecessor; should one ever not,
 * the stream ends with `UNAVAILABLE` before it, and a resuming client continues after the last
 * event it counted.
 */

import { Metadata, type ServerWritableStream } from '@grpc/grpc-js';
import type { StreamResponse } from '../../protocol/generated/types.js';
import { pushEvents, type EventPush } from '../../runtime/event-push.js';
import type { Logger } from '../../runtime/logger.js';
import type { EventStream } from '../../runtime/request-handler.js';
import type { StreamEvent } from '../../runtime/stream-event.js';
import type { StreamingOperation } from '../server/server-call.js';
import { grpcMethodOf, type GrpcMessageCodec } from './grpc-codec.js';
import { FIRST_EVENT_ID_HEADER } from './grpc-event-ids.js';
import { GrpcCode } from './grpc-status.js';

/** What turns a thrown value into the status that ends the stream. */
export interface StreamStatusSource {
  statusOf(
    error: unknown,
    operation: StreamingOperation,
  ): { code: number; details: string; reason?: string | undefined };
}

const STREAM_RESPONSE: GrpcMessageCodec = grpcMethodOf('SendStreamingMessage').response;

/** The binary `StreamResponse` of each event, per codec, shared by every stream that sends it. */
const encodedBy = new WeakMap<GrpcMessageCodec, WeakMap<StreamEvent, Buffer>>();

function encodeEvent(event: StreamEvent, codec: GrpcMessageCodec): Buffer {
  let encoded = encodedBy.get(codec);
  if (encoded === undefined) {
    encoded = new WeakMap();
    encodedBy.set(codec, encoded);
  }
  let bytes = encoded.get(event);
  if (bytes === undefined) {
    bytes = Buffer.from(codec.encode(event.payload));
    encoded.set(event, bytes);
  }
  return bytes;
}

/** How one stream is sent. */
export interface GrpcEventStreamOptions {
  /** The encoder of `StreamResponse` (the 0.3 service has its own); 1.0's by default. */
  readonly codec?: GrpcMessageCodec | undefined;
  /** Response headers to send before the first event (activated extensions). */
  readonly headers?: Metadata | undefined;
  /** The call's resume position (`last-event-id`), when it resumes. */
  readonly afterSeq?: number | undefined;
}

/** Pushes the events of one stream to its gRPC call. */
export class GrpcEventStream {
  readonly #events: EventStream;
  readonly #call: ServerWritableStream<Buffer, Buffer>;
  readonly #statuses: StreamStatusSource;
  readonly #operation: StreamingOperation;
  readonly #logger: Logger;
  readonly #codec: GrpcMessageCodec;
  #push: EventPush | undefined;
  #finished = false;
  #firstPayload: StreamResponse | undefined;
  /** Response headers to send (activated extensions), until sent with the first event or the status. */
  #headers: Metadata | undefined;
  /** The id the next event must have; `undefined` before the first, or for events without id. */
  #nextSeq: number | undefined;
  /** The resume position of the call, whose first event id is therefore known at the start. */
  readonly #resumedAfter: number | undefined;
  #headersSent = false;
  #onFinish: ((code: number, reason: string | undefined) => void) | undefined;

  constructor(
    events: EventStream,
    call: ServerWritableStream<Buffer, Buffer>,
    statuses: StreamStatusSource,
    operation: StreamingOperation,
    logger: Logger,
    options: GrpcEventStreamOptions = {},
  ) {
    this.#codec = options.codec ?? STREAM_RESPONSE;
    this.#events = events;
    this.#headers = options.headers;
    this.#resumedAfter = options.afterSeq;
    this.#call = call;
    this.#statuses = statuses;
    this.#operation = operation;
    this.#logger = logger;
  }

  /** The first event sent, for the log line of the call. */
  get firstPayload(): StreamResponse | undefined {
    return this.#firstPayload;
  }

  /** Calls `listener` once, with the status code, when the stream has ended however it ended. */
  onFinish(listener: (code: number, reason: string | undefined) => void): void {
    this.#onFinish = listener;
  }

  /** Starts pushing; called once. */
  start(): void {
    const call = this.#call;
    if (call.cancelled) {
      this.#release();
      return;
    }
    call.once('cancelled', () => this.#release());
    if (this.#resumedAfter !== undefined) {
      // A resumed stream may wait long for its next event; its client learns at once that it
      // has started, as an SSE client does from the response headers.
      this.#nextSeq = this.#resumedAfter + 1;
      this.#sendHeaders(this.#nextSeq);
    }
    this.#push = pushEvents(this.#events, { event: this.#onEvent, end: this.#onEnd }, this.#logger);
    call.on('drain', () => this.#push?.resume());
  }

  /** The client cancelled or went away: stop the runtime subscription. */
  #release(): void {
    if (this.#finished) return;
    this.#finish(GrpcCode.CANCELLED, undefined);
    if (this.#push !== undefined) {
      this.#push.stop();
      return;
    }
    const returned = this.#events[Symbol.asyncIterator]().return?.();
    returned?.then(undefined, (error: unknown) => {
      this.#logger.warn({ err: error }, 'releasing an event stream failed');
    });
  }

  #finish(code: number, reason: string | undefined): void {
    this.#finished = true;
    const listener = this.#onFinish;
    this.#onFinish = undefined;
    listener?.(code, reason);
  }

  /**
   * Sends the response headers once, before the first event, with its id when it has one (or at
   * the start of a resumed stream, whose first id is known). A stream that
   * ends before any event sends them only when they carry something (activated extensions), so
   * that an error answered at once stays a trailers-only response, as a unary error is.
   */
  #sendHeaders(firstSeq: number | undefined): void {
    if (this.#headersSent) return;
    this.#headersSent = true;
    let headers = this.#headers;
    this.#headers = undefined;
    if (firstSeq !== undefined) {
      headers ??= new Metadata();
      headers.set(FIRST_EVENT_ID_HEADER, String(firstSeq));
    }
    if (headers !== undefined) this.#call.sendMetadata(headers);
  }

  /** Whether `event` has the id its position in the stream gives it; advances the count. */
  #counts(event: StreamEvent): boolean {
    const expected = this.#nextSeq;
    if (expected !== undefined && event.seq !== expected) return false;
    this.#nextSeq = event.seq === undefined ? undefined : event.seq + 1;
    return true;
  }

  readonly #onEvent = (event: StreamEvent): boolean => {
    if (this.#finished) return false;
    if (this.#firstPayload === undefined) {
      this.#firstPayload = event.payload;
      this.#sendHeaders(event.seq);
    }
    if (!this.#counts(event)) {
      this.#logger.warn(
        { seq: event.seq, expected: this.#nextSeq },
        'an event does not follow its predecessor; ending the gRPC stream so that the client resumes',
      );
      this.#end({
        code: GrpcCode.UNAVAILABLE,
        details: 'the stream lost count of its events; resume after the last event received',
      });
      this.#push?.stop();
      return false;
    }
    let bytes: Buffer;
    try {
      bytes = encodeEvent(event, this.#codec);
    } catch (error) {
      this.#fail(error);
      this.#push?.stop();
      return false;
    }
    return this.#call.write(bytes);
  };

  readonly #onEnd = (error?: unknown): void => {
    if (this.#finished) {
      if (error !== undefined) {
        this.#logger.warn({ err: error }, 'event stream failed after the client went away');
      }
      return;
    }
    if (error === undefined) {
      this.#finish(GrpcCode.OK, undefined);
      this.#sendHeaders(undefined);
      this.#call.end();
      return;
    }
    this.#fail(error);
  };

  /** Ends the call with the status of what broke the stream. */
  #fail(error: unknown): void {
    this.#end(this.#statuses.statusOf(error, this.#operation));
  }

  #end(status: { code: number; details: string; reason?: string | undefined }): void {
    this.#finish(status.code, status.reason);
    this.#sendHeaders(undefined);
    this.#call.emit('error', status);
  }
}
