/**
 * The call log: one `info` line (`msg: 'request'`) per call, on every binding, with what an
 * operator needs to follow traffic — method and path (gRPC: `POST` and the method's path), the
 * status (HTTP status, or gRPC status code), binding, operation, task id, outcome (the binding's
 * error code and the A2A error reason), the principal the duration and the request id — and nothing from message
 * contents or credentials: the principal is the id authentication derived (a token's name or
 * hash, a certificate's subject, a JWT's issuer and subject), never what the caller presented. It
 * reads what the binding reports (`CallReport`), never a binding's types, and costs nothing when
 * `info` is disabled: callers check {@link CallLog.enabled} before the clock is read or any field
 * is gathered.
 */

import type { Principal } from '../../runtime/call-context.js';
import { silentLogger, type Logger } from '../../runtime/logger.js';
import type { CallReport } from './call-report.js';

/** One call, as logged. */
export interface LoggedCall {
  /** The HTTP method (`POST` for gRPC, whose calls are HTTP/2 POSTs). */
  readonly method: string;
  /** The request path (gRPC: `/lf.a2a.v1.A2AService/<Method>`). */
  readonly path: string;
  /** The HTTP status, or the gRPC status code. */
  readonly status: number;
  /** Who called, once authenticated; absent for a call refused before. */
  readonly principal: Principal | undefined;
  /** What the binding reported; absent for a request no binding answered (a card, a 404). */
  readonly report: CallReport | undefined;
  /** `performance.now()` when the call arrived. */
  readonly startMs: number;
  /** The request id the response returned (`request-id.ts`). */
  readonly requestId?: string | undefined;
}

/** Pino-compatible level check, when the logger has one. */
interface LevelAware {
  isLevelEnabled(level: string): boolean;
}

function isLevelAware(logger: Logger): logger is Logger & LevelAware {
  return typeof (logger as Partial<LevelAware>).isLevelEnabled === 'function';
}

/** Logs calls through `logger` when its `info` level is enabled. */
export class CallLog {
  readonly #logger: Logger;
  readonly #enabled: () => boolean;

  constructor(logger: Logger) {
    this.#logger = logger;
    if (logger === silentLogger) this.#enabled = () => false;
    else if (isLevelAware(logger)) this.#enabled = () => logger.isLevelEnabled('info');
    else this.#enabled = () => true;
  }

  /** Whether calls should be logged; check before gathering anything. */
  get enabled(): boolean {
    return this.#enabled();
  }

  /** Writes the line of `call`, its duration up to now. */
  write(call: LoggedCall): void {
    const entry: Record<string, unknown> = {
      method: call.method,
      path: call.path,
      status: call.status,
      durationMs: Math.round((performance.now() - call.startMs) * 100) / 100,
    };
    const report = call.report;
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
    if (call.principal !== undefined) entry.principal = call.principal.id;
    if (call.requestId !== undefined) entry.requestId = call.requestId;
    this.#logger.info(entry, 'request');
  }
}
