/**
 * A runtime event stream as a gRPC server stream (spec 10.7): one `StreamResponse` message per
 * event, back-pressure from the HTTP/2 stream (a `write` that answers `false` holds the runtime's
 * events until `drain`), and the status that ends it — `OK`, or the error that broke the stream
 * as a status with its details. A client that cancels the call (or goes away) releases the
 * runtime subscription at once; the task goes on.
 *
 * An event delivered to several streams (the runtime's fan-out hands each the same object) is
 * encoded once.
 */

import type { ServerWritableStream } from '@grpc/grpc-js';
import type { StreamResponse } from '../../protocol/generated/types.js';
import { pushEvents, type EventPush } from '../../runtime/event-push.js';
import type { Logger } from '../../runtime/logger.js';
import type { EventStream } from '../../runtime/request-handler.js';
import type { StreamEvent } from '../../runtime/stream-event.js';
import type { StreamingOperation } from '../server/server-call.js';
import { grpcMethodOf, type GrpcMessageCodec } from './grpc-codec.js';
import { GrpcCode } from './grpc-status.js';

/** What turns a thrown value into the status that ends the stream. */
export interface StreamStatusSource {
  statusOf(
    error: unknown,
    operation: StreamingOperation,
  ): { code: number; details: string; reason?: string };
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
  #onFinish: ((code: number, reason: string | undefined) => void) | undefined;

  constructor(
    events: EventStream,
    call: ServerWritableStream<Buffer, Buffer>,
    statuses: StreamStatusSource,
    operation: StreamingOperation,
    logger: Logger,
    codec: GrpcMessageCodec = STREAM_RESPONSE,
  ) {
    this.#codec = codec;
    this.#events = events;
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

  readonly #onEvent = (event: StreamEvent): boolean => {
    if (this.#finished) return false;
    this.#firstPayload ??= event.payload;
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
      this.#call.end();
      return;
    }
    this.#fail(error);
  };

  /** Ends the call with the status of what broke the stream. */
  #fail(error: unknown): void {
    const status = this.#statuses.statusOf(error, this.#operation);
    this.#finish(status.code, status.reason);
    this.#call.emit('error', status);
  }
}
