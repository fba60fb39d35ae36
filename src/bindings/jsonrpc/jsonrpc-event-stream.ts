/**
 * How the JSON-RPC binding frames a stream (spec 9.4.2): each event's `data:` is a JSON-RPC
 * response with the request's id whose `result` is the event's precomputed JSON, spliced in without
 * re-serializing; an error that breaks the stream is one last frame carrying a JSON-RPC error with
 * the same id. The stream itself (ids, back-pressure, stop) is the shared `SseEventStream`.
 */

import type { A2AError } from '../../protocol/errors.js';
import { JSONRPC_BINDING } from '../../protocol/protocol-bindings.js';
import { encodeSseEvent } from '../../protocol/sse-encoder.js';
import type { Logger } from '../../runtime/logger.js';
import type { EventStream } from '../../runtime/request-handler.js';
import { SseEventStream, type SseFraming } from '../server/sse-event-stream.js';
import { errorEnvelope } from './jsonrpc-envelope.js';

class JsonRpcFraming implements SseFraming {
  readonly binding = JSONRPC_BINDING;
  readonly #idToken: string;
  readonly #dataPrefix: string;

  constructor(idToken: string) {
    this.#idToken = idToken;
    this.#dataPrefix = 'data: {"jsonrpc":"2.0","id":' + idToken + ',"result":';
  }

  eventData(json: string): string {
    return this.#dataPrefix + json + '}';
  }

  errorFrame(error: A2AError): string {
    return encodeSseEvent({ data: errorEnvelope(this.#idToken, error) });
  }

  errorCodeOf(error: A2AError): number {
    return error.code;
  }
}

/**
 * The SSE stream of a JSON-RPC streaming call.
 *
 * @param idToken the request id as a JSON token, echoed in every frame.
 */
export function jsonRpcEventStream(
  events: EventStream,
  idToken: string,
  logger: Logger,
  operation: string,
): SseEventStream {
  return new SseEventStream(events, new JsonRpcFraming(idToken), logger, operation);
}

/** The stream a JSON-RPC streaming call answers with. */
export type JsonRpcEventStream = SseEventStream;
