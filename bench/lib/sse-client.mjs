/**
 * A small SSE client for `SendStreamingMessage`: it times the first and the last event of one
 * stream and checks the stream's shape. Under load it checks cheaply (event counts by substring,
 * the final state) so that the client stays far from being the bottleneck; the smoke test asks
 * for the parsed events and checks them in full.
 */

import { request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { RPC_HEADERS } from './json-rpc.mjs';

/**
 * @typedef {object} StreamOutcome
 * @property {boolean} ok the stream answered 200 text/event-stream and ended after a COMPLETED event
 * @property {string} [error] why it is not ok
 * @property {number} firstEventMs from sending the request to the first complete event
 * @property {number} lastEventMs from sending the request to the last event
 * @property {number} events SSE events received (comments excluded)
 * @property {number} artifactEvents events whose payload is an `artifactUpdate`
 * @property {string[]} [data] the `data` of each event, when `keepData` is set
 * @property {number[]} [arrivalMs] when each event arrived, when `keepData` is set
 */

/**
 * Opens one stream and follows it to its end.
 * @param {string} url the JSON-RPC endpoint
 * @param {string} body a SendStreamingMessage request
 * @param {{agent?: import('node:http').Agent | false, keepData?: boolean, timeoutMs?: number}} [options]
 * @returns {Promise<StreamOutcome>}
 */
export function openStream(
  url,
  body,
  { agent = false, keepData = false, timeoutMs = 60_000 } = {},
) {
  return new Promise((resolve) => {
    const started = performance.now();
    /** @type {StreamOutcome} */
    const outcome = {
      ok: false,
      firstEventMs: Number.NaN,
      lastEventMs: Number.NaN,
      events: 0,
      artifactEvents: 0,
    };
    if (keepData) {
      outcome.data = [];
      outcome.arrivalMs = [];
    }
    let lastData = '';
    let settled = false;
    const finish = (error) => {
      if (settled) return;
      settled = true;
      if (error === undefined && !lastData.includes('"TASK_STATE_COMPLETED"')) {
        error = `stream ended after ${outcome.events} events without a COMPLETED status`;
      }
      outcome.ok = error === undefined;
      if (error !== undefined) outcome.error = error;
      resolve(outcome);
    };

    const onEvent = (block) => {
      let data;
      for (const line of block.split('\n')) {
        if (line.startsWith('data:')) {
          const value = line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5);
          data = data === undefined ? value : `${data}\n${value}`;
        }
      }
      if (data === undefined) return; // a comment (heartbeat) or an id-only block
      const now = performance.now() - started;
      if (outcome.events === 0) outcome.firstEventMs = now;
      outcome.lastEventMs = now;
      outcome.events++;
      if (data.includes('"artifactUpdate"')) outcome.artifactEvents++;
      lastData = data;
      if (keepData) {
        outcome.data.push(data);
        outcome.arrivalMs.push(now);
      }
    };

    const req = request(url, { method: 'POST', headers: RPC_HEADERS, agent }, (res) => {
      const type = String(res.headers['content-type'] ?? '');
      if (res.statusCode !== 200 || !type.startsWith('text/event-stream')) {
        res.resume();
        res.on('end', () => finish(`HTTP ${res.statusCode} ${type}, not 200 text/event-stream`));
        return;
      }
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        buffer += chunk;
        if (buffer.includes('\r')) {
          // SSE allows CRLF and CR line ends; a trailing CR may be the first half of a CRLF.
          const held = buffer.endsWith('\r') ? 1 : 0;
          const head = buffer.slice(0, buffer.length - held).replace(/\r\n?/g, '\n');
          buffer = held === 1 ? `${head}\r` : head;
        }
        let end;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          onEvent(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      });
      res.on('end', () =>
        finish(buffer.trim() === '' ? undefined : 'stream ended inside an event'),
      );
      res.on('error', (error) => finish(error.message));
    });
    req.setTimeout(timeoutMs, () =>
      req.destroy(new Error(`stream still open after ${timeoutMs} ms`)),
    );
    req.on('error', (error) => finish(error.message));
    req.end(body);
  });
}
