/**
 * Closed-loop request/response load with autocannon: `connections` keep-alive connections, each
 * sending its next request as soon as the previous answer arrives, for a time or a number of
 * requests. Every answer is checked (a JSON-RPC error is HTTP 200 and would otherwise count as a
 * success), and latencies are recorded with sub-millisecond precision from autocannon's
 * per-response event rather than its whole-millisecond histogram.
 */

import autocannon from 'autocannon';
import { RPC_HEADERS } from './json-rpc.mjs';
import { Samples } from './stats.mjs';

/**
 * @typedef {object} LoadResult
 * @property {number} requests answers received
 * @property {number} rps answers per second over the run
 * @property {number} p50Ms
 * @property {number} p99Ms
 * @property {number} failures transport errors, timeouts, non-2xx and answers failing `verify`
 * @property {number} seconds how long the run took
 */

/**
 * @param {object} options
 * @param {string} options.url the JSON-RPC endpoint, or a REST route
 * @param {'POST' | 'GET'} [options.method] POST (the default) sends `body`/`nextBody`; GET none
 * @param {Record<string, string>} [options.headers] instead of the JSON-RPC headers
 * @param {number} options.connections
 * @param {number} [options.seconds] run for this long…
 * @param {number} [options.amount] …or until this many answers
 * @param {string} [options.body] the same body for every request
 * @param {() => string} [options.nextBody] a fresh body per request (unique message ids)
 * @param {(body: string) => boolean} [options.verify] true when an answer is a success
 * @returns {Promise<LoadResult>}
 */
export async function runLoad({
  url,
  method = 'POST',
  headers = RPC_HEADERS,
  connections,
  seconds,
  amount,
  body,
  nextBody,
  verify,
}) {
  const latencies = new Samples();
  const request =
    nextBody === undefined
      ? { method, ...(method === 'GET' ? {} : { body }) }
      : {
          method,
          setupRequest(req) {
            req.body = nextBody();
            return req;
          },
        };
  const instance = autocannon({
    url,
    // autocannon refuses more connections than requests.
    connections: amount === undefined ? connections : Math.min(connections, amount),
    pipelining: 1,
    method,
    headers,
    requests: [request],
    ...(amount === undefined ? { duration: seconds } : { amount }),
    // Stop within 100 ms of the deadline (autocannon stops on a sampling tick).
    sampleInt: 100,
    timeout: 30,
    ...(verify === undefined ? {} : { verifyBody: verify }),
  });
  instance.on('response', (_client, _status, _bytes, responseTimeMs) =>
    latencies.add(responseTimeMs),
  );
  const result = await instance;
  const [p50Ms, p99Ms] = latencies.quantiles(0.5, 0.99);
  return {
    requests: result.requests.total,
    rps: result.requests.total / result.duration,
    p50Ms,
    p99Ms,
    failures: result.errors + result.timeouts + result.non2xx + result.mismatches,
    seconds: result.duration,
  };
}

/**
 * True for an answer carrying a completed task (SendMessage `echo`, GetTask): a JSON-RPC
 * response, or a REST body, which has `"error"` only when it is an error too.
 */
export function isCompleted(body) {
  return body.includes('"TASK_STATE_COMPLETED"') && !body.includes('"error"');
}
