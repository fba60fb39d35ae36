/**
 * Abuse limits (spec 13.4: rate limiting on all operations, limits on request complexity) as a
 * server interceptor, so that every binding enforces the same ones:
 * - requests per minute, and new tasks per minute, per principal — per network address for
 *   anonymous callers, who all share one principal;
 * - concurrent streams per principal (or address);
 * - parts per message.
 * A rate or concurrency limit answers {@link LimitExceededError} (`call-limit-options.ts`), and a
 * message over the part limit an `InvalidParamsError` naming `message.parts`. Either way nothing
 * is stored: the check comes before the operation. Hits are logged without credentials or
 * contents. Rates are counted by the shared limiter, `TokenBuckets`.
 *
 * One limiter counts for one agent, on every binding and listener that serves it; the server
 * makes it and places it innermost in the agent's chain, so that the interceptors around it see
 * its refusals as the call's outcome.
 */

import { recordLimitRefusal } from '../../telemetry/refusal-metrics.js';
import { InvalidParamsError } from '../../protocol/errors.js';
import { integerOption } from '../../protocol/integer-option.js';
import type { OperationName, OperationRequest } from '../../protocol/operations.js';
import type { CallContext } from '../../runtime/call-context.js';
import type { Logger } from '../../runtime/logger.js';
import { observeEvents } from '../../runtime/observed-event-stream.js';
import type { EventStream } from '../../runtime/request-handler.js';
import {
  DEFAULT_CALL_LIMITS,
  LimitExceededError,
  type CallLimitsOptions,
  type CallLimitValues,
} from './call-limit-options.js';
import type {
  OperationResult,
  ServerCall,
  ServerCallHandler,
  ServerInterceptor,
} from './server-interceptor.js';
import { TokenBuckets } from './token-buckets.js';

/** The key a caller is limited by. */
function callerKey(call: CallContext): string {
  if (!call.principal.anonymous) return `principal:${call.principal.id}`;
  return `address:${call.peerAddress ?? 'unknown'}`;
}

/**
 * The limits, checked.
 *
 * @throws ConfigurationError for a limit that is not a positive integer.
 */
export function callLimitValues(options: CallLimitsOptions): CallLimitValues {
  const value = (name: keyof CallLimitsOptions): number =>
    integerOption(`limits.${name}`, options[name] ?? DEFAULT_CALL_LIMITS[name], 1);
  return {
    requestsPerMinute: value('requestsPerMinute'),
    tasksPerMinute: value('tasksPerMinute'),
    concurrentStreams: value('concurrentStreams'),
    partsPerMessage: value('partsPerMessage'),
  };
}

/** The limits of one agent's calls. */
export class CallLimiter {
  readonly #limits: CallLimitValues;
  readonly #logger: Logger;
  readonly #requests: TokenBuckets;
  readonly #tasks: TokenBuckets;
  readonly #streams = new Map<string, number>();

  constructor(limits: CallLimitValues, logger: Logger, now: () => number = Date.now) {
    this.#limits = limits;
    this.#logger = logger;
    this.#requests = new TokenBuckets(limits.requestsPerMinute, now);
    this.#tasks = new TokenBuckets(limits.tasksPerMinute, now);
  }

  /** The interceptor that enforces the limits around every operation. */
  readonly interceptor: ServerInterceptor =
    (next) =>
    <N extends OperationName>(
      operation: N,
      call: ServerCall,
      request: OperationRequest<N>,
    ): Promise<OperationResult<N>> => {
      const refused =
        operation === 'SendMessage' || operation === 'SendStreamingMessage'
          ? this.#admitMessage(call, operation, request as OperationRequest<'SendMessage'>)
          : this.admit(call, operation);
      if (refused !== undefined) return Promise.reject(refused);
      if (operation === 'SendStreamingMessage' || operation === 'SubscribeToTask') {
        return this.#counted(call, operation, next, request as never) as Promise<
          OperationResult<N>
        >;
      }
      return next(operation, call, request);
    };

  /**
   * The refusal of a call over the caller's request rate, else `undefined` (the call is counted).
   * For calls that are not operations (Tandem's delivery-status route), which count too.
   */
  admit(call: CallContext, operation: string): LimitExceededError | undefined {
    const wait = this.#requests.take(callerKey(call));
    if (wait === undefined) return undefined;
    return this.#logged(
      call,
      operation,
      new LimitExceededError(
        `Too many requests: at most ${this.#limits.requestsPerMinute} per minute; retry in ${wait} s`,
        'requestsPerMinute',
        wait,
      ),
    );
  }

  /** Logs a limit's refusal (never a credential: the caller is its key). */
  #logged(call: CallContext, operation: string, error: LimitExceededError): LimitExceededError {
    recordLimitRefusal(error.limit, operation);
    this.#logger.warn(
      {
        operation,
        limit: error.limit,
        caller: callerKey(call),
        retryAfterSeconds: error.retryAfterSeconds,
      },
      'a call was refused by a limit',
    );
    return error;
  }

  /** The refusal of a message over a limit, else `undefined`. */
  #admitMessage(
    call: CallContext,
    operation: string,
    request: OperationRequest<'SendMessage'>,
  ): Error | undefined {
    const refused = this.admit(call, operation);
    if (refused !== undefined) return refused;
    const parts = request.message.parts.length;
    if (parts > this.#limits.partsPerMessage) {
      recordLimitRefusal('partsPerMessage', operation);
      return InvalidParamsError.fromViolations([
        {
          field: 'message.parts',
          description: `has ${parts} parts; at most ${this.#limits.partsPerMessage} are accepted (limit partsPerMessage)`,
        },
      ]);
    }
    const taskId = request.message.taskId;
    if (taskId !== undefined && taskId !== '') return undefined;
    const wait = this.#tasks.take(callerKey(call));
    if (wait === undefined) return undefined;
    return this.#logged(
      call,
      operation,
      new LimitExceededError(
        `Too many new tasks: at most ${this.#limits.tasksPerMinute} per minute; retry in ${wait} s`,
        'tasksPerMinute',
        wait,
      ),
    );
  }

  /** Counts a stream against its caller until it ends; refuses one over the limit. */
  async #counted<N extends 'SendStreamingMessage' | 'SubscribeToTask'>(
    call: ServerCall,
    operation: N,
    next: ServerCallHandler,
    request: OperationRequest<N>,
  ): Promise<EventStream> {
    const key = callerKey(call);
    const open = this.#streams.get(key) ?? 0;
    if (open >= this.#limits.concurrentStreams) {
      throw this.#logged(
        call,
        operation,
        new LimitExceededError(
          `Too many open streams: at most ${this.#limits.concurrentStreams} at once; close one first`,
          'concurrentStreams',
          undefined,
        ),
      );
    }
    this.#streams.set(key, open + 1);
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      const left = (this.#streams.get(key) ?? 1) - 1;
      if (left <= 0) this.#streams.delete(key);
      else this.#streams.set(key, left);
    };
    let stream: EventStream;
    try {
      stream = (await next(operation, call, request)) as EventStream;
    } catch (error) {
      release();
      throw error;
    }
    return observeEvents(stream, { onEnd: release });
  }
}
