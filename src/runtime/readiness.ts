/**
 * Readiness, for `GET /readyz`: whether a request handler can serve now — its task runtime has
 * started, and its store answers a read. A seam beside {@link A2ARequestHandler}, as the push
 * delivery status is: the runtime's handlers implement it, and a handler of one's own that does
 * not is taken as ready. Liveness (`/healthz`) is another question: a process whose database is
 * down is alive, and should not be restarted for it.
 */

import type { TaskStore } from '../stores/task-store.js';
import type { A2ARequestHandler } from './request-handler.js';

/** Whether a handler can serve, and if not, why (low-detail: never a credential or a host). */
export type Readiness =
  { readonly ready: true } | { readonly ready: false; readonly reason: string };

/** What can tell its readiness. */
export interface ReadinessSource {
  checkReadiness(): Promise<Readiness>;
}

/** The readiness of `handler`, or `undefined` when it tells none. */
export function readinessOf(handler: A2ARequestHandler): ReadinessSource | undefined {
  const source = handler as A2ARequestHandler & Partial<ReadinessSource>;
  return typeof source.checkReadiness === 'function' ? (source as ReadinessSource) : undefined;
}

/** How long the store has to answer the probe's read. */
const PROBE_TIMEOUT_MS = 2_000;

/** A task id no task has (not a UUID, which every task id the runtime makes is). */
const PROBE_TASK_ID = 'tandem-readiness-probe';

/** The code of a failure (`ECONNREFUSED`, `57P01`), else its class: never its message. */
function failureCode(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Za-z0-9_]{1,32}$/.test(code)) return code;
    const name = (error as { name?: unknown }).name;
    if (typeof name === 'string') return name;
  }
  return 'unknown error';
}

/** Settles like `promise`, or rejects with a TimeoutError after `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new DOMException(`no answer within ${ms} ms`, 'TimeoutError'));
    }, ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The readiness of a runtime's handler: `started` is the runtime's start state, then the store
 * must answer a read of a task that does not exist within 2 s.
 */
export async function storeReadiness(
  started: 'starting' | 'started' | 'failed' | 'not started',
  store: TaskStore,
): Promise<Readiness> {
  if (started !== 'started') {
    return {
      ready: false,
      reason: `the task runtime has ${started === 'starting' ? 'not started yet' : started === 'failed' ? 'failed to start' : 'not been started'}`,
    };
  }
  try {
    await within(
      store.getTask({ agent: '', tenant: '', owner: null }, PROBE_TASK_ID),
      PROBE_TIMEOUT_MS,
    );
    return { ready: true };
  } catch (error) {
    return { ready: false, reason: `the task store is unreachable (${failureCode(error)})` };
  }
}
