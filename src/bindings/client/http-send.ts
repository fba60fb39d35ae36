/**
 * How the HTTP-based transports (and card discovery) send a request: with the caller's `fetch`,
 * the one place that sees the raw HTTP exchange, or the global one. A `fetch` failure becomes a
 * {@link ConnectionError} naming the request and the system error (`ECONNREFUSED`...), except
 * when the request was aborted, which rejects with the abort reason (the caller's, or a
 * `CallTimeoutError`).
 */

import { ConnectionError } from './transport-errors.js';
import { describeRequest } from './transport-http.js';

/** A `fetch`: what `ClientOptions.fetch` takes. */
export type FetchFunction = (request: Request) => Promise<Response>;

/** Sends one HTTP request; failures are typed as the module says. */
export type HttpSend = (request: Request) => Promise<Response>;

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

/** The {@link HttpSend} of a `fetch`. */
export function createHttpSend(fetchFunction: FetchFunction = globalFetch): HttpSend {
  return async (request) => {
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
