/**
 * The request log: one `info` line per HTTP request with what an operator needs to follow
 * traffic — HTTP method, path, binding and operation, task id, status, outcome (the binding's
 * error code and the A2A error reason), duration — and nothing from message contents or
 * credentials. It reads what the binding reports (`CallReport`), never a binding's types. It
 * costs nothing when `info` is disabled: the level is checked before the clock is read or any
 * field is gathered.
 */

import type { CallReport } from '../bindings/server/call-report.js';
import type { StreamReport } from '../bindings/server/server-binding.js';
import type { HttpRequest, HttpResponse, SseSink, SseSource } from '../protocol/http-exchange.js';
import { silentLogger, type Logger } from '../runtime/logger.js';

/** Pino-compatible level check, when the logger has one. */
interface LevelAware {
  isLevelEnabled(level: string): boolean;
}

function isLevelAware(logger: Logger): logger is Logger & LevelAware {
  return typeof (logger as Partial<LevelAware>).isLevelEnabled === 'function';
}

function isStreamReport(report: CallReport): report is StreamReport {
  return typeof (report as Partial<StreamReport>).onFinish === 'function';
}

/** Logs requests through `logger` when its `info` level is enabled. */
export class RequestLog {
  readonly #logger: Logger;
  readonly #enabled: () => boolean;

  constructor(logger: Logger) {
    this.#logger = logger;
    if (logger === silentLogger) this.#enabled = () => false;
    else if (isLevelAware(logger)) this.#enabled = () => logger.isLevelEnabled('info');
    else this.#enabled = () => true;
  }

  /** Whether this request should be logged; check before gathering anything. */
  get enabled(): boolean {
    return this.#enabled();
  }

  /**
   * Logs the request now, or — for an event stream — when the stream ends, so that the duration
   * and outcome cover the whole stream. Returns the response to send (a stream is wrapped).
   */
  finish(
    request: HttpRequest,
    response: HttpResponse,
    report: CallReport | undefined,
    startMs: number,
  ): HttpResponse {
    if (response.sse === undefined || report === undefined || !isStreamReport(report)) {
      this.#write(request, response.status, report, startMs);
      return response;
    }
    const sse = new LoggedSseSource(response.sse, () =>
      this.#write(request, response.status, report, startMs),
    );
    return { ...response, sse };
  }

  #write(
    request: HttpRequest,
    status: number,
    report: CallReport | undefined,
    startMs: number,
  ): void {
    const entry: Record<string, unknown> = {
      method: request.method,
      path: request.mountPath + request.path,
      status,
      durationMs: Math.round((performance.now() - startMs) * 100) / 100,
    };
    if (report !== undefined) {
      const errorCode = report.errorCode;
      entry.binding = report.binding;
      entry.operation = report.operation;
      const taskId = report.taskId;
      if (taskId !== undefined) entry.taskId = taskId;
      entry.outcome = errorCode === undefined ? 'ok' : 'error';
      if (errorCode !== undefined) entry.errorCode = errorCode;
      const reason = report.errorReason;
      if (reason !== undefined) entry.errorReason = reason;
    }
    this.#logger.info(entry, 'request');
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
