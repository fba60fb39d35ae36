/**
 * A server interceptor that records every call it sees, the way a tracing or metrics interceptor
 * would: the operation, where the call came from (binding, 0.3 door, agent, the tag header the
 * test sent), and how it ended — answered, failed, or for a stream each event and its end
 * (completed, failed, canceled by the client). A test waits for the record of a tagged call.
 */

import {
  isEventStream,
  observeEvents,
  type EventStreamEnd,
  type ServerInterceptor,
} from '../../src/server.js';
import type { OperationName } from '../../src/index.js';
import { TAG_HEADER } from './drivers/a2a-driver.js';
import { deferred, type Deferred } from './sync.js';

/** One call, once it has ended. */
export interface RecordedCall {
  readonly operation: OperationName;
  readonly binding: string;
  readonly compatVersion: string | undefined;
  readonly protocolVersion: string;
  readonly agentPath: string;
  readonly agentName: string;
  readonly principal: string;
  readonly tag: string | undefined;
  /** `answered`/`failed` for a unary call; the stream's end for a streaming one. */
  readonly outcome: 'answered' | 'failed' | EventStreamEnd['kind'];
  /** What a failed call was refused with. */
  readonly error: unknown;
  /** The events of a stream, in order (their kind: `task`, `statusUpdate`...). */
  readonly events: readonly string[];
}

/** Records calls; `ended(tag)` resolves with the record of the call sent with `tag`. */
export class RecordingInterceptor {
  readonly calls: RecordedCall[] = [];
  /** Tags of calls that reached the interceptor and have not ended yet. */
  readonly open = new Set<string>();
  readonly #waiting = new Map<string, Deferred<RecordedCall>>();

  #entry(tag: string): Deferred<RecordedCall> {
    let found = this.#waiting.get(tag);
    if (found === undefined) {
      found = deferred<RecordedCall>();
      this.#waiting.set(tag, found);
    }
    return found;
  }

  /** The record of the call tagged `tag`, once it has ended. */
  ended(tag: string): Promise<RecordedCall> {
    return this.#entry(tag).promise;
  }

  readonly interceptor: ServerInterceptor = (next) => async (operation, call, request) => {
    const tag = call.serviceParameters.get(TAG_HEADER) ?? undefined;
    if (tag !== undefined) this.open.add(tag);
    const events: string[] = [];
    const record = (outcome: RecordedCall['outcome'], error?: unknown): void => {
      const entry: RecordedCall = {
        operation,
        binding: call.binding,
        compatVersion: call.compatVersion,
        protocolVersion: call.protocolVersion,
        agentPath: call.agent.path,
        agentName: call.agent.card.name,
        principal: call.principal.id,
        tag,
        outcome,
        error,
        events,
      };
      this.calls.push(entry);
      if (tag === undefined) return;
      this.open.delete(tag);
      this.#entry(tag).resolve(entry);
    };
    let result;
    try {
      result = await next(operation, call, request);
    } catch (error) {
      record('failed', error);
      throw error;
    }
    if (!isEventStream(result)) {
      record('answered');
      return result;
    }
    return observeEvents(result, {
      onEvent: (event) => events.push(Object.keys(event.payload)[0] ?? '?'),
      onEnd: (end) => record(end.kind, end.kind === 'failed' ? end.error : undefined),
    });
  };
}
