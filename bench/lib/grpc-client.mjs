/**
 * A minimal gRPC client for `lf.a2a.v1.A2AService` on `node:http2`, the harness's own for the
 * reason `json-rpc.mjs` and `sse-client.mjs` are: every target is driven identically and nothing
 * of a client library's (interceptors, channel state machines, load balancing, per-call objects)
 * sits between the timings and the socket or competes with the load generator for its core.
 * It speaks what gRPC over HTTP/2 is — a POST to `/<service>/<method>` with
 * `content-type: application/grpc`, length-prefixed messages, `grpc-status` in the trailers —
 * plaintext (h2c), uncompressed, on one HTTP/2 connection per channel.
 *
 * Messages are encoded and decoded with protobufjs from `spec/a2a.proto` of this checkout, the
 * proto the servers implement. Its `google/api` imports only carry options (HTTP mapping, field
 * behaviour) and are not needed on the wire; the `google/protobuf` ones come with protobufjs.
 */

import { readFileSync } from 'node:fs';
import { connect } from 'node:http2';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

const PROTO = join(fileURLToPath(new URL('../../', import.meta.url)), 'spec/a2a.proto');
const SERVICE = 'lf.a2a.v1.A2AService';

/** gRPC status codes the harness names (grpc/doc/statuscodes.md). */
export const GRPC_STATUS = Object.freeze({ OK: 0, NOT_FOUND: 5, UNAVAILABLE: 14 });

let types;

/** The protobufjs types of the A2A messages the harness sends and reads (loaded once). */
export function a2aTypes() {
  if (types === undefined) {
    const root = new protobuf.Root();
    const parsed = protobuf.parse(readFileSync(PROTO, 'utf8'), root, { keepCase: false });
    for (const name of parsed.imports ?? []) {
      const common = protobuf.common.get(name);
      if (common !== null && common !== undefined) root.addJSON(common.nested);
    }
    root.resolveAll();
    const type = (name) => root.lookupType(`lf.a2a.v1.${name}`);
    types = {
      SendMessageRequest: type('SendMessageRequest'),
      SendMessageResponse: type('SendMessageResponse'),
      GetTaskRequest: type('GetTaskRequest'),
      Task: type('Task'),
      StreamResponse: type('StreamResponse'),
      TaskState: root.lookupEnum('lf.a2a.v1.TaskState').values,
    };
  }
  return types;
}

/** A decoded message as plain JSON-like data: camelCase fields, enums by name (as ProtoJSON). */
export function toPlain(type, message) {
  return type.toObject(message, { enums: String, longs: Number, bytes: String });
}

/**
 * A factory of encoded `SendMessageRequest`s for one command, each with a fresh UUID-shaped
 * `messageId` (bench-agent.md "Requests"). The request is encoded once around a placeholder id of
 * the same length; each call copies the bytes and writes the next id over it.
 * @param {string} text the command
 * @param {() => string} nextId ids of 36 ASCII characters (`createMessageIds()`)
 */
export function sendMessageRequests(text, nextId) {
  const placeholder = '#'.repeat(36);
  const template = Buffer.from(
    a2aTypes()
      .SendMessageRequest.encode({
        message: { messageId: placeholder, role: 1, parts: [{ text }] },
      })
      .finish(),
  );
  const offset = template.indexOf(placeholder, 0, 'latin1');
  return () => {
    const bytes = Buffer.from(template);
    bytes.write(nextId(), offset, 36, 'latin1');
    return bytes;
  };
}

/** One encoded message framed for gRPC: uncompressed flag, 4-byte big-endian length, bytes. */
function frame(bytes) {
  const framed = Buffer.allocUnsafe(5 + bytes.length);
  framed[0] = 0;
  framed.writeUInt32BE(bytes.length, 1);
  framed.set(bytes, 5);
  return framed;
}

/**
 * @typedef {object} CallOutcome
 * @property {number} status the gRPC status (NaN when the call broke before one arrived)
 * @property {string} [error] why the call is not OK: the status and its message, or the transport error
 * @property {number} firstMessageMs from sending the request to the first response message
 * @property {number} lastMessageMs from sending the request to the last response message
 * @property {number} endMs from sending the request to the status
 * @property {number} messages response messages received
 * @property {Buffer | undefined} last the last response message
 */

/**
 * One HTTP/2 connection to a target's gRPC port, carrying any number of concurrent calls
 * (streams), as a gRPC channel does.
 */
export class GrpcChannel {
  #session;
  #closed;
  /** Why the connection failed, once it has. */
  #failure;

  constructor(port, host = '127.0.0.1') {
    this.#session = connect(`http://${host}:${port}`, {
      // Large windows, as gRPC implementations open them, so that flow control never stalls a
      // stream of 100 chunks or eight calls in flight.
      settings: { initialWindowSize: 4 * 2 ** 20 },
    });
    this.#session.on('connect', () => this.#session.setLocalWindowSize(16 * 2 ** 20));
    this.#session.on('error', (error) => (this.#failure = error));
    this.#closed = new Promise((resolve) => this.#session.once('close', resolve));
  }

  /**
   * Calls `method` with one encoded request and reads the response messages to the status.
   * `onMessage` sees each message as it arrives (its arrival time since the call started).
   * @param {string} method e.g. `SendMessage`
   * @param {Uint8Array} request the encoded request message
   * @param {{onMessage?: (bytes: Buffer, atMs: number) => void, timeoutMs?: number,
   *   metadata?: Record<string, string>}} [options]
   * @returns {Promise<CallOutcome>}
   */
  call(method, request, { onMessage, timeoutMs = 30_000, metadata = {} } = {}) {
    return new Promise((resolve) => {
      const started = performance.now();
      /** @type {CallOutcome} */
      const outcome = {
        status: Number.NaN,
        firstMessageMs: Number.NaN,
        lastMessageMs: Number.NaN,
        endMs: Number.NaN,
        messages: 0,
        last: undefined,
      };
      let settled = false;
      const finish = (error) => {
        if (settled) return;
        settled = true;
        outcome.endMs = performance.now() - started;
        if (error !== undefined) outcome.error = error;
        else if (outcome.status !== GRPC_STATUS.OK && outcome.error === undefined)
          outcome.error = Number.isNaN(outcome.status)
            ? 'the call ended without a grpc-status'
            : `gRPC status ${outcome.status}`;
        resolve(outcome);
      };
      if (this.#session.destroyed || this.#failure !== undefined) {
        finish(`connection failed: ${this.#failure?.message ?? 'closed'}`);
        return;
      }
      const stream = this.#session.request({
        ':method': 'POST',
        ':path': `/${SERVICE}/${method}`,
        'content-type': 'application/grpc',
        te: 'trailers',
        'a2a-version': '1.0',
        ...metadata,
      });
      const readStatus = (headers) => {
        if (headers['grpc-status'] === undefined) return;
        outcome.status = Number(headers['grpc-status']);
        if (outcome.status !== GRPC_STATUS.OK) {
          const message = decodeURIComponent(String(headers['grpc-message'] ?? ''));
          outcome.error = `gRPC status ${outcome.status}${message === '' ? '' : `: ${message}`}`;
        }
      };
      stream.on('response', (headers) => {
        const type = String(headers['content-type'] ?? '');
        if (headers[':status'] !== 200 || !type.startsWith('application/grpc')) {
          outcome.error = `HTTP ${headers[':status']} ${type}, not 200 application/grpc`;
        }
        // A trailers-only response (an error before any message) carries the status here.
        readStatus(headers);
      });
      stream.on('trailers', readStatus);
      let buffer = Buffer.alloc(0);
      stream.on('data', (chunk) => {
        buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
        while (buffer.length >= 5) {
          const length = buffer.readUInt32BE(1);
          if (buffer.length < 5 + length) break;
          const message = buffer.subarray(5, 5 + length);
          buffer = buffer.subarray(5 + length);
          const now = performance.now() - started;
          if (outcome.messages === 0) outcome.firstMessageMs = now;
          outcome.lastMessageMs = now;
          outcome.messages++;
          outcome.last = message;
          onMessage?.(message, now);
        }
      });
      stream.setTimeout(timeoutMs, () => {
        stream.close();
        finish(`no status within ${timeoutMs} ms`);
      });
      stream.on('error', (error) => finish(error.message));
      stream.on('close', () =>
        finish(buffer.length === 0 ? undefined : 'the call ended inside a message'),
      );
      stream.end(frame(request));
    });
  }

  /** Closes the connection (calls in flight are ended by the server's answer or by reset). */
  async close() {
    if (!this.#session.destroyed) this.#session.close();
    await this.#closed;
  }
}
