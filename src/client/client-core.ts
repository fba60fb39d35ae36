/**
 * What every call of a client shares, whatever the operation: the interface's `tenant` on the
 * request (spec 8.3.2 rule 4, unless the caller set one), the service parameters and credentials
 * in the headers, the time limit and the caller's signal, retries for idempotent operations, and
 * resumable streams. The transport below only speaks its binding.
 */

import type { AgentInterface, StreamResponse } from '../protocol/generated/types.js';
import type { OperationRequest } from '../protocol/operations.js';
import type {
  StreamCall,
  StreamCallResult,
  StreamingOperationName,
  UnaryCall,
  UnaryCallResult,
  UnaryOperationName,
  UnaryResult,
} from '../bindings/client/client-transport.js';
import type { CallOptions } from './a2a-client.js';
import { CallScope } from './call-scope.js';
import type { CallHandler, ClientCall } from './interceptor.js';
import { withRetry, type RetryPolicy } from './retry-policy.js';
import { resumableStream, type StreamConnection } from './stream-resume.js';

/** Operations that may be repeated without changing the outcome (spec 3.1.10, 3.3.1). */
const IDEMPOTENT: ReadonlySet<UnaryOperationName> = new Set<UnaryOperationName>([
  'GetTask',
  'ListTasks',
  'CancelTask',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
]);

/** The settled configuration of a client. */
export interface ClientCoreOptions {
  /** The caller's interceptors around the transport of the interface. */
  readonly handler: CallHandler;
  readonly agentInterface: AgentInterface;
  /** Where calls go: the interface URL, with credentials placed in its query. */
  readonly url: string;
  /** Headers of every call: service parameters, credentials, the caller's headers. */
  readonly headers: Headers;
  readonly timeoutMs: number;
  readonly retry: RetryPolicy;
  /** Resume attempts after a dropped stream; 0 disables resuming. */
  readonly resumeAttempts: number;
}

export class ClientCore {
  readonly #options: ClientCoreOptions;

  constructor(options: ClientCoreOptions) {
    this.#options = options;
  }

  /** The request with the interface's tenant, unless it names one itself. */
  withTenant<R extends object>(request: R): R {
    const tenant = this.#options.agentInterface.tenant;
    if (tenant === undefined || tenant === '' || 'tenant' in request) return request;
    return { ...request, tenant };
  }

  /** Fresh headers for each attempt, so that what an interceptor adds is not added twice. */
  #headers(options: CallOptions): Headers {
    const headers = new Headers(this.#options.headers);
    for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value);
    return headers;
  }

  /** Calls a unary operation; idempotent ones are retried on transient failures. */
  async unary<N extends UnaryOperationName>(
    operation: N,
    request: OperationRequest<N>,
    options: CallOptions = {},
  ): Promise<UnaryResult<N>> {
    const scope = new CallScope(options.signal, options.timeoutMs ?? this.#options.timeoutMs);
    const message = this.withTenant(request);
    const { handler, url } = this.#options;
    const signal = scope.signal;
    const attempt = async (): Promise<UnaryResult<N>> => {
      const headers = this.#headers(options);
      const call: UnaryCall<N> = { stream: false, operation, message, url, headers, signal };
      return ((await handler(call as ClientCall)) as UnaryCallResult<N>).message;
    };
    try {
      if (!IDEMPOTENT.has(operation)) return await attempt();
      return await withRetry(attempt, this.#options.retry, scope.signal);
    } finally {
      scope.clearTimeout();
    }
  }

  /**
   * Streams a streaming operation. The time limit covers the wait for the first event of the
   * first connection, and the wait for a resumed connection to start: an idle stream is not a
   * slow one. Leaving the loop aborts the request, which closes the connection.
   */
  stream<N extends StreamingOperationName>(
    operation: N,
    request: OperationRequest<N>,
    options: CallOptions & { lastEventId?: string | undefined } = {},
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const message = this.withTenant(request);
    const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs;
    const { handler, url } = this.#options;
    const connect = async (
      name: StreamingOperationName,
      body: OperationRequest<StreamingOperationName>,
      lastEventId: string | undefined,
      firstEventTimeout: boolean,
    ): Promise<StreamConnection> => {
      const scope = new CallScope(options.signal, timeoutMs);
      try {
        const call: StreamCall = {
          stream: true,
          operation: name,
          message: body,
          url,
          headers: this.#headers(options),
          signal: scope.signal,
          lastEventId,
        };
        const items = ((await handler(call as ClientCall)) as StreamCallResult).message;
        if (!firstEventTimeout) scope.clearTimeout();
        return {
          items: firstEventTimed(items, scope, firstEventTimeout),
          close: () => scope.close(),
        };
      } catch (error) {
        scope.close();
        throw error;
      }
    };
    return resumableStream({
      open: () => connect(operation, message, options.lastEventId, true),
      resume: (taskId, lastEventId) =>
        connect('SubscribeToTask', this.withTenant({ id: taskId }), lastEventId, false),
      taskId: operation === 'SubscribeToTask' ? (message as { id: string }).id : undefined,
      lastEventId: options.lastEventId,
      maxAttempts: this.#options.resumeAttempts,
      backoff: this.#options.retry,
      signal: options.signal,
    });
  }
}

/** Stops the time limit at the first event, when it applies to the first event. */
async function* firstEventTimed<T>(
  items: AsyncIterable<T>,
  scope: CallScope,
  armed: boolean,
): AsyncGenerator<T, void, undefined> {
  for await (const item of items) {
    if (armed) scope.clearTimeout();
    yield item;
  }
}
