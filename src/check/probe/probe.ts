/**
 * A probe speaks one interface of the agent — a binding at a protocol version — as a client
 * would, but hands back what the wire said rather than hiding it: each call's outcome comes with
 * the exchange that shows it, an answer that is not the binding's is `invalid` (never coerced),
 * and an error keeps every code it came with so that the checks can tell a right answer from a
 * near miss. Checks are written once against 1.0 requests; each probe writes them in its
 * version's shapes (0.3 methods, `kind` tags, `/v1/` routes) and reads the answers back into
 * validated 1.0 values, with the raw answer beside them.
 */

import type { StreamResponse } from '../../protocol/generated/types.js';
import type {
  StreamingOperationName,
  UnaryOperationName,
} from '../../bindings/client/client-transport.js';
import type { CheckBindingName, CheckProtocolVersion } from '../check-types.js';
import type { Exchange } from '../wire/wire-exchange.js';
import type { WireError } from './wire-error.js';

/** The interface a probe speaks. */
export interface ProbeTarget {
  readonly binding: CheckBindingName;
  readonly version: CheckProtocolVersion;
  /** The interface URL (absolute; `host:port` for gRPC). */
  readonly url: string;
  /** The interface's `tenant`, sent with every 1.0 request. */
  readonly tenant: string | undefined;
}

/** How one call departs from the usual. */
export interface CallSettings {
  /**
   * The `A2A-Version` to send; `null` sends none. Default `1.0` on 1.0 interfaces, none on 0.3
   * ones (0.3 clients send none).
   */
  readonly version?: string | null;
  /** Whether to send the credentials (default true). */
  readonly credentials?: boolean;
  /** Extra headers (gRPC: metadata). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Resume after this event (SSE `Last-Event-ID`, gRPC `last-event-id` metadata). */
  readonly lastEventId?: string;
  /** HTTP+JSON: the verb of `SubscribeToTask` (`POST` as spec 11.3.2 writes it, or `GET`). */
  readonly verb?: 'GET' | 'POST';
}

/** A result, validated as the operation's 1.0 response. */
export interface ResultOutcome {
  readonly kind: 'result';
  /** The 1.0 value (for 0.3, translated). */
  readonly value: unknown;
  /** The result as the wire carried it (JSON; for gRPC the ProtoJSON of the message). */
  readonly raw: unknown;
  readonly exchange: Exchange;
}

/** An error answered in some form; `WireError` says which and how well. */
export interface ErrorOutcome {
  readonly kind: 'error';
  readonly error: WireError;
  readonly exchange: Exchange;
}

/** An answer that is neither a valid result nor an error of the binding. */
export interface InvalidOutcome {
  readonly kind: 'invalid';
  readonly problem: string;
  readonly exchange: Exchange;
}

/** No answer: the connection failed or the time limit passed. */
export interface UnreachableOutcome {
  readonly kind: 'unreachable';
  readonly problem: string;
  readonly exchange: Exchange;
}

/** What a unary call came to. */
export type CallOutcome = ResultOutcome | ErrorOutcome | InvalidOutcome | UnreachableOutcome;

/** One event of a stream. */
export interface StreamEventRead {
  /** The SSE `id:`, or the gRPC event id, when the agent numbers its events. */
  readonly id?: string;
  /** The event as the wire carried it (for JSON-RPC: the envelope's `result`). */
  readonly raw: unknown;
  /** The event as a validated 1.0 `StreamResponse`, unless it is not one. */
  readonly payload?: StreamResponse;
  /** What is wrong with the event (framing, envelope, shape), when something is. */
  readonly problem?: string;
}

/** How a stream ended, as far as the checker read it. */
export type StreamEnd =
  | { readonly end: 'closed' }
  | { readonly end: 'error'; readonly error: WireError }
  | { readonly end: 'broken'; readonly problem: string }
  | { readonly end: 'timeout' }
  | { readonly end: 'stopped' };

/** An open stream. */
export interface EventStream {
  /** The next event, or how the stream ended; waits at most `timeoutMs` for it. */
  next(timeoutMs: number): Promise<StreamEventRead | StreamEnd>;
  /** Lines of the stream that are no SSE field (HTTP bindings). */
  readonly strayLines: readonly string[];
  /** Closes the stream. */
  close(): void;
}

/** A stream that opened. */
export interface StreamOpened {
  readonly kind: 'stream';
  /** The media type of the answer (HTTP bindings). */
  readonly mediaType: string | undefined;
  readonly events: EventStream;
  /** The exchange; its response body shows the stream's start once read. */
  readonly exchange: () => Exchange;
}

/** What a streaming call came to. */
export type StreamOutcome = StreamOpened | ErrorOutcome | InvalidOutcome | UnreachableOutcome;

/** One interface of the agent, spoken as the checker speaks it. */
export interface Probe {
  readonly target: ProbeTarget;
  /** Calls a unary operation. */
  call(
    operation: UnaryOperationName,
    request: object,
    settings?: CallSettings,
  ): Promise<CallOutcome>;
  /** Opens a streaming operation. */
  stream(
    operation: StreamingOperationName,
    request: object,
    settings?: CallSettings,
  ): Promise<StreamOutcome>;
  /**
   * A GetTask whose parameters are invalid in this binding's own way (a missing `id`, a
   * `historyLength` that is no integer): the agent must answer InvalidParamsError. Also says
   * which field it made invalid. `taskId` names a task the agent has, so that the answer cannot
   * be TaskNotFoundError.
   */
  invalidGetTask(
    taskId?: string,
  ): Promise<{ readonly outcome: CallOutcome; readonly field: string }>;
}
