/**
 * The receiving side of push notifications (spec 4.3.3, 13.2): a webhook handler that checks the
 * sender's credentials, validates the `StreamResponse`, drops the duplicates that at-least-once
 * delivery brings (by the delivery id header) and hands each notification, typed, to a callback.
 *
 * It is a web-standard `(Request) => Promise<Response>` handler — for fetch servers, edge runtimes
 * or Deno — and {@link toNodePushListener} adapts it to `node:http`:
 *
 * ```ts
 * const receiver = createPushReceiver({
 *   token: process.env.WEBHOOK_TOKEN,
 *   onNotification: ({ taskId, payload }) => console.log(taskId, payload),
 * });
 * http.createServer(toNodePushListener(receiver)).listen(8080);
 * ```
 *
 * Answers: 204 once the callback resolved (or for a duplicate); 401 for a wrong token or
 * credentials; 400 for a body that is not a `StreamResponse`; 405 and 415 for other methods and
 * media types; 500 when the callback throws — the sender then retries, and the delivery id is
 * not remembered, so the retry is handed over again.
 */

import type { StreamResponse } from '../protocol/generated/types.js';
import { DELIVERY_ID_HEADER, NOTIFICATION_TOKEN_HEADER } from '../protocol/push-headers.js';
import { parseMessage } from '../protocol/validation.js';

/** One notification, as the callback gets it. */
export interface PushNotification {
  /** The sender's delivery id (the same on every retry), when it sent one. */
  readonly deliveryId: string | undefined;
  /** The task the event is about (the message's task for a `message`, when it has one). */
  readonly taskId: string | undefined;
  readonly kind: 'task' | 'message' | 'statusUpdate' | 'artifactUpdate';
  readonly payload: StreamResponse;
}

/** Options of {@link createPushReceiver}. */
export interface PushReceiverOptions {
  /** Receives each notification once; a rejection answers 500 (the sender retries). */
  readonly onNotification: (notification: PushNotification) => void | Promise<void>;
  /** The config's `token`: required in `X-A2A-Notification-Token` when set. */
  readonly token?: string | undefined;
  /**
   * The config's `authentication` as the `Authorization` header it makes (`Bearer s3cret`), or
   * a check of that header: required when set.
   */
  readonly authorization?: string | ((header: string | null) => boolean) | undefined;
  /** Accept only notifications of these tasks (spec 13.2: tasks the client created). */
  readonly acceptTask?: (taskId: string | undefined) => boolean;
  /** Delivery ids remembered for deduplication (the most recent ones). Default 10,000. */
  readonly rememberedDeliveries?: number | undefined;
  /** Largest accepted body in bytes. Default 4 MiB. */
  readonly maxBodyBytes?: number | undefined;
  /**
   * Told of each delivery refused (wrong token, a body that is no `StreamResponse`...), with
   * the status answered and why; the reason names no secret.
   */
  readonly onReject?: ((rejection: PushRejection) => void) | undefined;
}

/** A delivery the receiver refused. */
export interface PushRejection {
  /** The HTTP status answered. */
  readonly status: number;
  /** Why, in the words of the answer's body. */
  readonly reason: string;
}

/** A web-standard webhook handler. */
export type PushReceiverHandler = (request: Request) => Promise<Response>;

/** Creates the webhook handler: see the module documentation. */
export function createPushReceiver(options: PushReceiverOptions): PushReceiverHandler {
  const remembered = options.rememberedDeliveries ?? 10_000;
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const seen = new Set<string>();
  const remember = (id: string): void => {
    seen.add(id);
    // A Set iterates in insertion order: the first is the oldest.
    if (seen.size > remembered) seen.delete(seen.values().next().value as string);
  };
  const refuse = (status: number, reason: string, headers?: Record<string, string>): Response => {
    options.onReject?.({ status, reason });
    return answer(status, reason, headers);
  };
  return async (request) => {
    if (request.method !== 'POST')
      return refuse(405, 'Push notifications are POSTed', { allow: 'POST' });
    if (!credentialsMatch(request.headers, options)) {
      return refuse(401, 'The notification token or credentials do not match');
    }
    const mediaType = (request.headers.get('content-type') ?? '')
      .split(';')[0]
      ?.trim()
      .toLowerCase();
    if (mediaType !== 'application/a2a+json' && mediaType !== 'application/json') {
      return refuse(415, 'A push notification is application/a2a+json');
    }
    const text = await request.text();
    if (text.length > maxBody) return refuse(413, 'The notification is too large');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return refuse(400, 'The body is not JSON');
    }
    const parsed = parseMessage('StreamResponse', body, { root: 'body' });
    if (!parsed.success) {
      const fields = parsed.violations.slice(0, 3).map((v) => `${v.field}: ${v.description}`);
      return refuse(400, `The body is not a StreamResponse (${fields.join('; ')})`);
    }
    const payload = parsed.value;
    const notification = notificationOf(
      payload,
      request.headers.get(DELIVERY_ID_HEADER) ?? undefined,
    );
    if (options.acceptTask !== undefined && !options.acceptTask(notification.taskId)) {
      return refuse(404, 'Not a task this receiver expects');
    }
    const { deliveryId } = notification;
    if (deliveryId !== undefined && seen.has(deliveryId))
      return new Response(null, { status: 204 });
    try {
      await options.onNotification(notification);
    } catch {
      return refuse(500, 'The notification could not be handled; retry');
    }
    if (deliveryId !== undefined) remember(deliveryId);
    return new Response(null, { status: 204 });
  };
}

function notificationOf(payload: StreamResponse, deliveryId: string | undefined): PushNotification {
  if (payload.task !== undefined)
    return { deliveryId, kind: 'task', taskId: payload.task.id, payload };
  if (payload.statusUpdate !== undefined) {
    return { deliveryId, kind: 'statusUpdate', taskId: payload.statusUpdate.taskId, payload };
  }
  if (payload.artifactUpdate !== undefined) {
    return { deliveryId, kind: 'artifactUpdate', taskId: payload.artifactUpdate.taskId, payload };
  }
  return { deliveryId, kind: 'message', taskId: payload.message.taskId, payload };
}

function credentialsMatch(headers: Headers, options: PushReceiverOptions): boolean {
  if (options.token !== undefined) {
    if (!constantTimeEqual(headers.get(NOTIFICATION_TOKEN_HEADER) ?? '', options.token))
      return false;
  }
  const expected = options.authorization;
  if (typeof expected === 'string') {
    return constantTimeEqual(headers.get('authorization') ?? '', expected);
  }
  return expected === undefined || expected(headers.get('authorization'));
}

/** Compares without stopping at the first difference, so that timing reveals no prefix. */
function constantTimeEqual(a: string, b: string): boolean {
  let difference = a.length ^ b.length;
  const length = Math.max(a.length, b.length);
  for (let i = 0; i < length; i++) difference |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0);
  return difference === 0;
}

function answer(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ error: message }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/** The parts of a `node:http` request the adapter reads. */
export interface NodeRequestLike extends AsyncIterable<Uint8Array | string> {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** The parts of a `node:http` response the adapter writes. */
export interface NodeResponseLike {
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body?: string | Uint8Array): unknown;
}

/** Adapts a {@link PushReceiverHandler} to a `node:http` request listener. */
export function toNodePushListener(
  handler: PushReceiverHandler,
  options: { maxBodyBytes?: number } = {},
): (request: NodeRequestLike, response: NodeResponseLike) => void {
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  return (request, response) => {
    void (async () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (value === undefined) continue;
        for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
      }
      const chunks: Uint8Array[] = [];
      let size = 0;
      for await (const chunk of request) {
        const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk;
        size += bytes.byteLength;
        if (size > maxBody) {
          response.writeHead(413, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ error: 'The notification is too large' }));
          return;
        }
        chunks.push(bytes);
      }
      const method = request.method ?? 'GET';
      const body = new Uint8Array(size);
      let offset = 0;
      for (const chunk of chunks) {
        body.set(chunk, offset);
        offset += chunk.byteLength;
      }
      const reply = await handler(
        new Request(`http://receiver${request.url ?? '/'}`, {
          method,
          headers,
          ...(method === 'GET' || method === 'HEAD' ? {} : { body }),
        }),
      );
      const out: Record<string, string> = {};
      reply.headers.forEach((value, name) => (out[name] = value));
      response.writeHead(reply.status, out);
      response.end(new Uint8Array(await reply.arrayBuffer()));
    })().catch(() => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: 'The receiver failed' }));
    });
  };
}
