/**
 * The inspector's own push receiver: a webhook for the configs the Push view creates. Unlike an
 * application's receiver it keeps what it refuses too, since seeing a wrong token or a malformed
 * body is the point of inspecting: every delivery is recorded with its headers (the token
 * masked), whether its token is one the inspector handed out, and why its body is not a
 * `StreamResponse` when it is not.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseMessage, type StreamResponse } from '../index.js';
import { DELIVERY_ID_HEADER, NOTIFICATION_TOKEN_HEADER } from '../client.js';
import { createCredentialMask } from './credential-mask.js';
import type { PushDelivery } from './inspector-api.js';

/** Deliveries kept; older ones are dropped. */
export const DELIVERY_LIMIT = 500;

/** The largest body accepted, in bytes. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

function taskOf(payload: StreamResponse): { taskId: string | null; kind: string } {
  if (payload.task !== undefined) return { taskId: payload.task.id, kind: 'task' };
  if (payload.statusUpdate !== undefined) {
    return { taskId: payload.statusUpdate.taskId, kind: 'statusUpdate' };
  }
  if (payload.artifactUpdate !== undefined) {
    return { taskId: payload.artifactUpdate.taskId, kind: 'artifactUpdate' };
  }
  return { taskId: payload.message.taskId ?? null, kind: 'message' };
}

async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The receiver and what it received. */
export class PushCapture {
  readonly #tokens = new Set<string>();
  readonly #deliveries: PushDelivery[] = [];
  readonly #listeners = new Set<(delivery: PushDelivery) => void>();
  #next = 1;

  /** Accepts `token` from now on (a config the inspector created with it). */
  expectToken(token: string): void {
    this.#tokens.add(token);
  }

  deliveries(): PushDelivery[] {
    return [...this.#deliveries];
  }

  subscribe(listener: (delivery: PushDelivery) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Handles a POST to the receiver. */
  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const given = request.headers[NOTIFICATION_TOKEN_HEADER];
    const token = typeof given === 'string' ? given : undefined;
    const tokenState =
      token === undefined ? 'missing' : this.#tokens.has(token) ? 'match' : 'mismatch';
    const text = await readBody(request);
    const problems: string[] = [];
    let payload: unknown = null;
    let task: { taskId: string | null; kind: string } = { taskId: null, kind: '' };
    if (text === undefined) {
      problems.push(`the body is larger than ${MAX_BODY_BYTES} bytes`);
    } else {
      try {
        payload = JSON.parse(text) as unknown;
      } catch {
        payload = text;
        problems.push('the body is not JSON');
      }
      if (problems.length === 0) {
        const parsed = parseMessage('StreamResponse', payload, { root: 'body' });
        if (parsed.success) task = taskOf(parsed.value);
        else problems.push(...parsed.violations.map((v) => `${v.field}: ${v.description}`));
      }
    }
    const status =
      request.method !== 'POST'
        ? 405
        : tokenState !== 'match'
          ? 401
          : problems.length > 0
            ? 400
            : 204;
    const mask = createCredentialMask({ secrets: token === undefined ? [] : [token] });
    const headers = Object.entries(request.headers).flatMap(([name, value]) =>
      (Array.isArray(value) ? value : value === undefined ? [] : [value]).map(
        (one) => [name, mask.header(name, one)] as const,
      ),
    );
    const delivery: PushDelivery = {
      id: this.#next++,
      time: new Date().toISOString(),
      headers,
      token: tokenState,
      deliveryId:
        typeof request.headers[DELIVERY_ID_HEADER] === 'string'
          ? request.headers[DELIVERY_ID_HEADER]
          : null,
      taskId: task.taskId,
      kind: task.kind === '' ? null : task.kind,
      payload,
      problems,
      status,
    };
    this.#deliveries.push(delivery);
    if (this.#deliveries.length > DELIVERY_LIMIT) this.#deliveries.shift();
    for (const listener of this.#listeners) listener(delivery);
    if (status === 204) {
      response.writeHead(204).end();
      return;
    }
    const message =
      status === 405
        ? 'Push notifications are POSTed'
        : status === 401
          ? 'The notification token does not match a config of this inspector'
          : `The body is not a StreamResponse (${problems.slice(0, 3).join('; ')})`;
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: message }));
  }
}
