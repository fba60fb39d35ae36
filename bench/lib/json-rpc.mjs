/**
 * The requests of bench-agent.md and a minimal JSON-RPC client over `node:http`. The harness owns
 * its HTTP client so that every target is driven identically — same headers, same bodies, same
 * connection reuse — and so that nothing on the client side (fetch, undici) sits between the
 * timings and the socket.
 */

import { request } from 'node:http';

/** The headers every request carries (bench-agent.md point 4). */
export const RPC_HEADERS = Object.freeze({
  'content-type': 'application/json',
  'a2a-version': '1.0',
});

/**
 * UUID-shaped message ids that are unique within a run without a random draw per request:
 * a random 8-hex-digit run prefix and a counter, in the layout of a version-4 UUID.
 */
export function createMessageIds() {
  const prefix = crypto.randomUUID().slice(0, 8);
  let counter = 0;
  return () => `${prefix}-0000-4000-8000-${(counter++).toString(16).padStart(12, '0')}`;
}

/** The `params.message` of every request: no taskId, contextId, configuration or metadata. */
export function userMessage(messageId, text) {
  return { messageId, role: 'ROLE_USER', parts: [{ text }] };
}

let nextRequestId = 1;

/** A JSON-RPC request body. */
export function rpcBody(method, params, id = nextRequestId++) {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

/**
 * A factory of `SendMessage`/`SendStreamingMessage` bodies for one command. The body is built by
 * concatenating around the message id, so that a load generator can produce a fresh,
 * well-formed body per request at the cost of one string concatenation.
 */
export function messageBodies(method, text) {
  const nextId = createMessageIds();
  const marker = '@@message-id@@';
  const template = rpcBody(method, { message: userMessage(marker, text) }, 1);
  const [head, tail] = template.split(marker);
  return () => head + nextId() + tail;
}

/**
 * POSTs `body` and reads the whole answer. `agent` decides connection reuse: pass a keep-alive
 * agent to reuse sockets, `false` for a fresh connection.
 * @returns {Promise<{status: number, headers: import('node:http').IncomingHttpHeaders,
 *   text: string, reusedSocket: boolean}>}
 */
export function post(url, body, { agent = false, timeoutMs = 10_000 } = {}) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: RPC_HEADERS, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text,
          reusedSocket: req.reusedSocket,
        }),
      );
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`No answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** GETs `url` (with `headers`, none by default) and reads the whole answer. */
export function get(url, { agent = false, timeoutMs = 10_000, headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text,
          reusedSocket: req.reusedSocket,
        }),
      );
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`No answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** Sends `echo <text>` with SendMessage and returns the completed task, or throws saying why not. */
export async function sendEcho(rpcUrl, text, options) {
  const body = rpcBody('SendMessage', {
    message: userMessage(crypto.randomUUID(), `echo ${text}`),
  });
  const answer = await post(rpcUrl, body, options);
  const task = JSON.parse(answer.text)?.result?.task;
  if (answer.status !== 200 || task?.status?.state !== 'TASK_STATE_COMPLETED') {
    throw new Error(
      `SendMessage "echo ${text}" did not complete: HTTP ${answer.status} ${answer.text.slice(0, 300)}`,
    );
  }
  return task;
}
