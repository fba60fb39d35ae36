/**
 * The request log: one `info` line per HTTP request with what an operator needs to follow
 * traffic — HTTP and JSON-RPC method, path, task id, status, outcome, duration — and nothing
 * from message contents or credentials. It costs nothing when `info` is disabled: the level is
 * checked before the clock is read or any field is gathered.
 */

import { taskIdOf } from '../bindings/jsonrpc/jsonrpc-dispatch.js';
import type { JsonRpcEventStream } from '../bindings/jsonrpc/jsonrpc-event-stream.js';
import type { JsonRpcReply } from '../bindings/jsonrpc/jsonrpc-server.js';
import { silentLogger, type Logger } from '../runtime/logger.js';
import type { HttpCoreRequest, HttpCoreResponse, SseSink, SseSource } from './http-exchange.js';

/** Pino-compatible level check, when the logger has one. */
interface LevelAware {
  isLevelEnabled(level: string): boolean;
}

function isLevelAware(logger: Logger): logger is Logger & LevelAware {
  return typeof (logger as Partial<LevelAware>).isLevelEnabled === 'function';
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
    request: HttpCoreRequest,
    response: HttpCoreResponse,
    reply: JsonRpcReply | undefined,
    startMs: number,
  ): HttpCoreResponse {
    if (response.sse === undefined || reply?.kind !== 'stream') {
      this.#write(request, response.status, reply, startMs);
      return response;
    }
    const stream = reply.stream;
    const sse = new LoggedSseSource(stream, () =>
      this.#write(request, response.status, reply, startMs),
    );
    return { ...response, sse };
  }

  #write(
    request: HttpCoreRequest,
    status: number,
    reply: JsonRpcReply | undefined,
    startMs: number,
  ): void {
    const errorCode = reply === undefined ? undefined : errorCodeOf(reply);
    const entry: Record<string, unknown> = {
      method: request.method,
      path: request.mountPath + request.path,
      status,
      durationMs: Math.round((performance.now() - startMs) * 100) / 100,
    };
    if (reply !== undefined) {
      entry.rpcMethod = reply.method;
      const result =
        reply.kind === 'body'
          ? reply.result
          : reply.kind === 'stream'
            ? reply.stream.firstPayload
            : undefined;
      const taskId = taskIdOf(reply.params, result);
      if (taskId !== undefined) entry.taskId = taskId;
      entry.outcome = errorCode === undefined ? 'ok' : 'error';
      if (errorCode !== undefined) entry.errorCode = errorCode;
    }
    this.#logger.info(entry, 'request');
  }
}

function errorCodeOf(reply: JsonRpcReply): number | undefined {
  return reply.kind === 'stream' ? reply.stream.errorCode : reply.errorCode;
}

/** Calls `onEnd` once when the stream ends or is stopped. */
class LoggedSseSource implements SseSource {
  readonly #inner: JsonRpcEventStream;
  #onEnd: (() => void) | undefined;

  constructor(inner: JsonRpcEventStream, onEnd: () => void) {
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
