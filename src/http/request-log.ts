/**
 * The request log of the HTTP bindings: every request goes to the call log shared with gRPC
 * (`bindings/server/call-log.ts`, which says what a line holds), an event stream when it ends, so
 * that its duration and outcome cover the whole stream. It costs nothing when `info` is disabled:
 * the level is checked before the clock is read or any field is gathered.
 */

import type { CallReport } from '../bindings/server/call-report.js';
import type { StreamReport } from '../bindings/server/server-binding.js';
import type {
  HttpRequest,
  HttpResponse,
  SseSink,
  SseSource,
} from '../bindings/server/http-exchange.js';
import { CallLog } from '../bindings/server/call-log.js';
import type { Principal } from '../runtime/call-context.js';
import type { Logger } from '../runtime/logger.js';

function isStreamReport(report: CallReport): report is StreamReport {
  return typeof (report as Partial<StreamReport>).onFinish === 'function';
}

/** Logs requests through the shared {@link CallLog}, an event stream when it ends. */
export class RequestLog {
  readonly #log: CallLog;

  constructor(logger: Logger) {
    this.#log = new CallLog(logger);
  }

  /** Whether this request should be logged; check before gathering anything. */
  get enabled(): boolean {
    return this.#log.enabled;
  }

  /**
   * Logs the request now, or — for an event stream — when the stream ends, so that the duration
   * and outcome cover the whole stream. Returns the response to send (a stream is wrapped).
   */
  finish(
    request: HttpRequest,
    response: HttpResponse,
    routed: {
      readonly report?: CallReport | undefined;
      readonly principal?: Principal | undefined;
    },
    startMs: number,
    requestId: string,
  ): HttpResponse {
    const { report } = routed;
    const write = (): void =>
      this.#log.write({
        method: request.method,
        path: request.mountPath + request.path,
        status: response.status,
        principal: routed.principal,
        report,
        startMs,
        requestId,
      });
    if (response.sse === undefined || report === undefined || !isStreamReport(report)) {
      write();
      return response;
    }
    return { ...response, sse: new LoggedSseSource(response.sse, write) };
  }
}

/** Calls `onEnd` once when the stream ends or is stopped. */
class LoggedSseSource implements SseSource {
  readonly #inner: SseSource;
  #onEnd: (() => void) | undefined;

  constructor(inner: SseSource, onEnd: () => void) {
    this.#inner = inner;
    this.#onEnd = onEnd;
  }

  start(sink: SseSink): void {
    this.#inner.start({
      write: (frame) => sink.write(frame),
      end: () => {
        this.#end();
        sink.end();
      },
    });
  }

  resume(): void {
    this.#inner.resume();
  }

  stop(): void {
    this.#inner.stop();
    this.#end();
  }

  #end(): void {
    const onEnd = this.#onEnd;
    this.#onEnd = undefined;
    onEnd?.();
  }
}
