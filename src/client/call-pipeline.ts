/**
 * The HTTP pipeline every request of a client goes through, card fetches included: the caller's
 * interceptors, outermost first, around `fetch`. `fetch` failures become {@link ConnectionError}s
 * naming the request and the system error (`ECONNREFUSED`...), except when the request was
 * aborted, which rejects with the abort reason (the caller's, or a `CallTimeoutError`).
 */

import type { CallHandler, ClientCall, Interceptor } from './a2a-client.js';
import { ConnectionError } from './client-errors.js';
import { describeRequest } from '../bindings/transport/transport-http.js';

/** The fetch function the client calls: the global one unless the caller gives another. */
export type FetchFunction = (request: Request) => Promise<Response>;

/** The global `fetch`, called as a function of the global object (browsers require it). */
export const globalFetch: FetchFunction = (request) => globalThis.fetch(request);

/** `ECONNREFUSED`, `ENOTFOUND`...: the system error code under a fetch failure, if any. */
function systemCodeOf(error: unknown): string | undefined {
  for (let cause = error, depth = 0; cause !== undefined && depth < 4; depth++) {
    if (typeof cause !== 'object' || cause === null) return undefined;
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}

function fetchHandler(fetchFunction: FetchFunction): CallHandler {
  return async ({ request }: ClientCall) => {
    try {
      return await fetchFunction(request);
    } catch (error) {
      if (request.signal.aborted) throw request.signal.reason as unknown;
      const code = systemCodeOf(error);
      const reason = code ?? (error instanceof Error ? error.message : String(error));
      throw new ConnectionError(
        `Could not reach the agent: ${describeRequest(request)} failed (${reason}); check the URL ` +
          'and that the agent is running',
        { cause: error },
      );
    }
  };
}

/**
 * Builds the handler chain: `interceptors[0]` sees each call first and the response last.
 *
 * @param before internal steps that run before the caller's interceptors (e.g. an API key in
 *   the query), so that interceptors see the request as it will be sent.
 */
export function createCallPipeline(
  fetchFunction: FetchFunction,
  interceptors: readonly Interceptor[],
  before: readonly Interceptor[] = [],
): CallHandler {
  const chain = [...before, ...interceptors];
  let handler = fetchHandler(fetchFunction);
  for (let i = chain.length - 1; i >= 0; i--) {
    const interceptor = chain[i];
    if (interceptor !== undefined) handler = interceptor(handler);
  }
  return handler;
}
