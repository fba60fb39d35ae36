/**
 * The server's logger: pino, which satisfies the runtime's {@link Logger} seam as is. JSON lines
 * by default (for log shippers); `pretty` prints one readable line per entry for a terminal,
 * without pulling in `pino-pretty`. A line written inside a span carries its trace and span ids.
 */

import { createRequire } from 'node:module';
import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import type * as PinoModule from 'pino';
import type { DestinationStream, Logger as PinoLogger } from 'pino';
import type { Logger } from '../runtime/logger.js';

type Pino = typeof PinoModule;

let pinoModule: Pino | undefined;

/**
 * pino (with its worker-thread transports) costs more to load than the rest of the server; it is
 * required on first use so that embedders with their own logger, and `--log-level silent`, never
 * pay for it.
 */
function loadPino(): Pino {
  pinoModule ??= createRequire(import.meta.url)('pino') as Pino;
  return pinoModule;
}

/** Log levels, most verbose first; `silent` logs nothing. */
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

/** Options of {@link createLogger}. */
export interface CreateLoggerOptions {
  /** Default `info`: one line per request. Use `warn` to turn the request log off. */
  readonly level?: LogLevel | undefined;
  /** Human-readable lines instead of JSON. */
  readonly pretty?: boolean | undefined;
  /** Where lines go; default standard output. */
  readonly destination?: DestinationStream | undefined;
}

const LABELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO ',
  40: 'WARN ',
  50: 'ERROR',
  60: 'FATAL',
};

const OMITTED = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'err']);

function formatValue(value: unknown): string {
  return typeof value === 'string' && /^[^\s="]+$/.test(value) ? value : JSON.stringify(value);
}

/** Formats one pino JSON line as `12:00:00.000 INFO  message key=value ...` (+ error stack). */
export function formatPrettyLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    // Not JSON (pino always writes JSON, but a foreign line is shown rather than lost).
    return line.endsWith('\n') ? line : line + '\n';
  }
  const time =
    typeof entry.time === 'number' ? new Date(entry.time).toISOString().slice(11, 23) : '';
  const label = typeof entry.level === 'number' ? (LABELS[entry.level] ?? String(entry.level)) : '';
  let out = `${time} ${label} ${typeof entry.msg === 'string' ? entry.msg : ''}`;
  for (const [key, value] of Object.entries(entry)) {
    if (!OMITTED.has(key)) out += ` ${key}=${formatValue(value)}`;
  }
  const err = entry.err as { stack?: unknown; message?: unknown } | undefined;
  if (err !== undefined) {
    const stack = typeof err.stack === 'string' ? err.stack : formatValue(err.message ?? err);
    out += '\n  ' + stack.replace(/\n/g, '\n  ');
  }
  return out + '\n';
}

function prettyStream(target: DestinationStream): DestinationStream {
  return { write: (line) => target.write(formatPrettyLine(line)) };
}

const NO_TRACE = Object.freeze({});

/**
 * The fields that join a log line to its trace: `trace_id`, `span_id` and `trace_flags` of the
 * span active where the line is written (the names of OpenTelemetry's log correlation), nothing
 * outside a span. With no OpenTelemetry SDK registered no span is ever active.
 */
export function traceFields(): object {
  const spanContext = trace.getSpanContext(context.active());
  if (spanContext === undefined || !isSpanContextValid(spanContext)) return NO_TRACE;
  return {
    trace_id: spanContext.traceId,
    span_id: spanContext.spanId,
    trace_flags: `0${spanContext.traceFlags.toString(16)}`,
  };
}

/** pino's merge of the line's own fields over {@link traceFields}, with no copy outside a span. */
function withTraceFields(mergeObject: object, mixinObject: object): object {
  return mixinObject === NO_TRACE ? mergeObject : Object.assign(mixinObject, mergeObject);
}

/**
 * Creates the server logger. The result is a pino logger: it satisfies {@link Logger} and offers
 * `isLevelEnabled`, which the HTTP layer uses to skip the request log at no cost.
 */
export function createLogger(options: CreateLoggerOptions = {}): PinoLogger {
  const level = options.level ?? 'info';
  const pino = loadPino();
  const destination = options.destination ?? pino.destination({ dest: 1, sync: false });
  const logger = pino.pino(
    { level, base: null, mixin: traceFields, mixinMergeStrategy: withTraceFields },
    options.pretty === true ? prettyStream(destination) : destination,
  );
  return logger satisfies Logger;
}
