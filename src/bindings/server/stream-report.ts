/**
 * The report of a call answered with an event stream, for every binding that streams over SSE
 * (JSON-RPC, HTTP+JSON and their 0.3 doors): the request log reads it once the stream has
 * finished, when its outcome — the error that broke it, in the binding's code, and the task it
 * was about — is known.
 */

import type { OperationName } from '../../protocol/operations.js';
import { taskIdOf } from './call-report.js';
import type { StreamReport } from './server-binding.js';
import type { SseEventStream } from './sse-event-stream.js';

/** What a streamed call reports. */
export class StreamCallReport implements StreamReport {
  readonly #request: unknown;
  readonly #stream: SseEventStream;

  /** @param request the validated request, for the task it names (else its first event's). */
  constructor(
    readonly binding: string,
    readonly operation: OperationName | undefined,
    request: unknown,
    stream: SseEventStream,
  ) {
    this.#request = request;
    this.#stream = stream;
  }

  get taskId(): string | undefined {
    return taskIdOf(this.#request, this.#stream.firstPayload);
  }

  get errorCode(): number | string | undefined {
    return this.#stream.errorCode;
  }

  get errorReason(): string | undefined {
    return this.#stream.error?.reason;
  }

  onFinish(listener: () => void): void {
    this.#stream.onFinish(listener);
  }
}
