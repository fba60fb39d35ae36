/**
 * Abuse limits (spec 13.4: rate limiting on all operations, limits on request complexity), as a
 * layer over any {@link A2ARequestHandler}, so that every binding enforces the same ones:
 * - requests per minute, and new tasks per minute, per principal — per network address for
 *   anonymous callers, who all share one principal;
 * - concurrent streams per principal (or address);
 * - parts per message.
 * A rate or concurrency limit answers {@link LimitExceededError} (`call-limit-options.ts`), and a
 * message over the part limit an `InvalidParamsError` naming `message.parts`. Either way nothing
 * is stored: the check comes before the operation. Hits are logged without credentials or
 * contents. Rates are counted by the shared limiter, `TokenBuckets`.
 */

import {
  deliveryStatusUnsupported,
  type PushDeliveryStatus,
  type PushDeliveryStatusRequest,
} from './push-notifications.js';
import { InvalidParamsError } from '../protocol/errors.js';
import type {
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  SendMessageResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '../protocol/generated/types.js';
import type { CallContext } from './call-context.js';
import {
  DEFAULT_CALL_LIMITS,
  LimitExceededError,
  type CallLimitsOptions,
} from './call-limit-options.js';
import type { TaskContentLimits } from './task-content-limits.js';
import type { Logger } from './logger.js';
import type { A2ARequestHandler, EventStream } from './request-handler.js';
import { TokenBuckets } from './token-buckets.js';
import { integerOption } from '../protocol/integer-option.js';

export type { CallLimitsOptions };

/** The limits this layer enforces (the task content limits are the runtime's). */
type CallerLimits = {
  readonly [K in Exclude<keyof CallLimitsOptions, keyof TaskContentLimits>]-?: number;
};

function positive(name: keyof CallLimitsOptions, value: number): number {
  return integerOption(`limits.${name}`, value, 1);
}

/** The key a caller is limited by. */
function callerKey(call: CallContext): string {
  if (!call.principal.anonymous) return `principal:${call.principal.id}`;
  return `address:${call.peerAddress ?? 'unknown'}`;
}

/**
 * Wraps `handler` with the limits.
 *
 * @throws ConfigurationError for a limit that is not a positive integer.
 */
export function withCallLimits(
  handler: A2ARequestHandler,
  options: CallLimitsOptions,
  logger: Logger,
  now: () => number = Date.now,
): A2ARequestHandler {
  const limits = {
    requestsPerMinute: positive(
      'requestsPerMinute',
      options.requestsPerMinute ?? DEFAULT_CALL_LIMITS.requestsPerMinute,
    ),
    tasksPerMinute: positive(
      'tasksPerMinute',
      options.tasksPerMinute ?? DEFAULT_CALL_LIMITS.tasksPerMinute,
    ),
    concurrentStreams: positive(
      'concurrentStreams',
      options.concurrentStreams ?? DEFAULT_CALL_LIMITS.concurrentStreams,
    ),
    partsPerMessage: positive(
      'partsPerMessage',
      options.partsPerMessage ?? DEFAULT_CALL_LIMITS.partsPerMessage,
    ),
  };
  return new LimitedRequestHandler(handler, limits, logger, now);
}

class LimitedRequestHandler implements A2ARequestHandler {
  readonly #inner: A2ARequestHandler;
  readonly #limits: CallerLimits;
  readonly #logger: Logger;
  readonly #requests: TokenBuckets;
  readonly #tasks: TokenBuckets;
  readonly #streams = new Map<string, number>();

  constructor(inner: A2ARequestHandler, limits: CallerLimits, logger: Logger, now: () => number) {
    this.#inner = inner;
    this.#limits = limits;
    this.#logger = logger;
    this.#requests = new TokenBuckets(limits.requestsPerMinute, now);
    this.#tasks = new TokenBuckets(limits.tasksPerMinute, now);
  }

  get card(): A2ARequestHandler['card'] {
    return this.#inner.card;
  }

  get capabilities(): A2ARequestHandler['capabilities'] {
    return this.#inner.capabilities;
  }

  /** Logs a refusal and returns it as the call's rejection. */
  #refuse(call: CallContext, operation: string, error: Error): Promise<never> {
    if (error instanceof LimitExceededError) {
      this.#logger.warn(
        {
          operation,
          limit: error.limit,
          caller: callerKey(call),
          retryAfterSeconds: error.retryAfterSeconds,
        },
        'a call was refused by a limit',
      );
    }
    return Promise.reject(error);
  }

  /** A rejection when the caller is over its request rate, else `undefined`. */
  #admit(call: CallContext, operation: string): Promise<never> | undefined {
    const wait = this.#requests.take(callerKey(call));
    if (wait === undefined) return undefined;
    return this.#refuse(
      call,
      operation,
      new LimitExceededError(
        `Too many requests: at most ${this.#limits.requestsPerMinute} per minute; retry in ${wait} s`,
        'requestsPerMinute',
        wait,
      ),
    );
  }

  /** A rejection when a message is over a limit, else `undefined`. */
  #admitMessage(
    call: CallContext,
    operation: string,
    request: SendMessageRequest,
  ): Promise<never> | undefined {
    const refused = this.#admit(call, operation);
    if (refused !== undefined) return refused;
    const parts = request.message.parts.length;
    if (parts > this.#limits.partsPerMessage) {
      return this.#refuse(
        call,
        operation,
        InvalidParamsError.fromViolations([
          {
            field: 'message.parts',
            description: `has ${parts} parts; at most ${this.#limits.partsPerMessage} are accepted (limit partsPerMessage)`,
          },
        ]),
      );
    }
    const taskId = request.message.taskId;
    if (taskId !== undefined && taskId !== '') return undefined;
    const wait = this.#tasks.take(callerKey(call));
    if (wait === undefined) return undefined;
    return this.#refuse(
      call,
      operation,
      new LimitExceededError(
        `Too many new tasks: at most ${this.#limits.tasksPerMinute} per minute; retry in ${wait} s`,
        'tasksPerMinute',
        wait,
      ),
    );
  }

  /** Counts a stream against its caller until it closes; refuses one over the limit. */
  async #counted(
    call: CallContext,
    operation: string,
    open: () => Promise<EventStream>,
  ): Promise<EventStream> {
    const key = callerKey(call);
    const open_ = this.#streams.get(key) ?? 0;
    if (open_ >= this.#limits.concurrentStreams) {
      return this.#refuse(
        call,
        operation,
        new LimitExceededError(
          `Too many open streams: at most ${this.#limits.concurrentStreams} at once; close one first`,
          'concurrentStreams',
          undefined,
        ),
      );
    }
    this.#streams.set(key, open_ + 1);
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
      stream = await open();
    } catch (error) {
      release();
      throw error;
    }
    const closed = (stream as { readonly closed?: Promise<void> }).closed;
    if (closed instanceof Promise) {
      closed.then(release, release);
      return stream;
    }
    return releasingOnEnd(stream, release);
  }

  sendMessage(call: CallContext, request: SendMessageRequest): Promise<SendMessageResponse> {
    return (
      this.#admitMessage(call, 'SendMessage', request) ?? this.#inner.sendMessage(call, request)
    );
  }

  sendStreamingMessage(call: CallContext, request: SendMessageRequest): Promise<EventStream> {
    return (
      this.#admitMessage(call, 'SendStreamingMessage', request) ??
      this.#counted(call, 'SendStreamingMessage', () =>
        this.#inner.sendStreamingMessage(call, request),
      )
    );
  }

  getTask(call: CallContext, request: GetTaskRequest): Promise<Task> {
    return this.#admit(call, 'GetTask') ?? this.#inner.getTask(call, request);
  }

  listTasks(call: CallContext, request: ListTasksRequest): Promise<ListTasksResponse> {
    return this.#admit(call, 'ListTasks') ?? this.#inner.listTasks(call, request);
  }

  cancelTask(call: CallContext, request: CancelTaskRequest): Promise<Task> {
    return this.#admit(call, 'CancelTask') ?? this.#inner.cancelTask(call, request);
  }

  subscribeToTask(call: CallContext, request: SubscribeToTaskRequest): Promise<EventStream> {
    return (
      this.#admit(call, 'SubscribeToTask') ??
      this.#counted(call, 'SubscribeToTask', () => this.#inner.subscribeToTask(call, request))
    );
  }

  createTaskPushNotificationConfig(
    call: CallContext,
    request: TaskPushNotificationConfig,
  ): Promise<TaskPushNotificationConfig> {
    return (
      this.#admit(call, 'CreateTaskPushNotificationConfig') ??
      this.#inner.createTaskPushNotificationConfig(call, request)
    );
  }

  getTaskPushNotificationConfig(
    call: CallContext,
    request: GetTaskPushNotificationConfigRequest,
  ): Promise<TaskPushNotificationConfig> {
    return (
      this.#admit(call, 'GetTaskPushNotificationConfig') ??
      this.#inner.getTaskPushNotificationConfig(call, request)
    );
  }

  listTaskPushNotificationConfigs(
    call: CallContext,
    request: ListTaskPushNotificationConfigsRequest,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return (
      this.#admit(call, 'ListTaskPushNotificationConfigs') ??
      this.#inner.listTaskPushNotificationConfigs(call, request)
    );
  }

  deleteTaskPushNotificationConfig(
    call: CallContext,
    request: DeleteTaskPushNotificationConfigRequest,
  ): Promise<void> {
    return (
      this.#admit(call, 'DeleteTaskPushNotificationConfig') ??
      this.#inner.deleteTaskPushNotificationConfig(call, request)
    );
  }

  getPushDeliveryStatus(
    call: CallContext,
    request: PushDeliveryStatusRequest,
  ): Promise<PushDeliveryStatus> {
    const inner = this.#inner;
    if (inner.getPushDeliveryStatus === undefined) {
      return Promise.reject(deliveryStatusUnsupported());
    }
    return this.#admit(call, 'GetPushDeliveryStatus') ?? inner.getPushDeliveryStatus(call, request);
  }

  getExtendedAgentCard(
    call: CallContext,
    request: GetExtendedAgentCardRequest,
  ): ReturnType<A2ARequestHandler['getExtendedAgentCard']> {
    return (
      this.#admit(call, 'GetExtendedAgentCard') ?? this.#inner.getExtendedAgentCard(call, request)
    );
  }

  negotiateExtensions(call: CallContext): readonly string[] {
    return this.#inner.negotiateExtensions(call);
  }

  shutdown(options?: { deadlineMs?: number }): Promise<void> {
    return this.#inner.shutdown(options);
  }
}

/** A stream that calls `release` once it ends however it ends (for streams without `closed`). */
function releasingOnEnd(stream: EventStream, release: () => void): EventStream {
  return {
    [Symbol.asyncIterator]() {
      const iterator = stream[Symbol.asyncIterator]();
      return {
        async next() {
          try {
            const result = await iterator.next();
            if (result.done === true) release();
            return result;
          } catch (error) {
            release();
            throw error;
          }
        },
        async return() {
          release();
          return (await iterator.return?.()) ?? { done: true, value: undefined };
        },
      };
    },
  };
}
