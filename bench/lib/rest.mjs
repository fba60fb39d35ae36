/**
 * The requests of bench-agent.md over the HTTP+JSON/REST binding (spec 11): `SendMessage` is
 * `POST {base}/message:send` (`:stream` for streaming) with the bare `SendMessageRequest` as its
 * body, `GetTask` is `GET {base}/tasks/{id}`. Sent with the harness's own `node:http` client and
 * the same headers as JSON-RPC, so that the two bindings differ only in what the binding defines.
 */

import { createMessageIds, post, userMessage } from './json-rpc.mjs';

/** The headers of a REST GET: the version, and no body to describe. */
export const REST_GET_HEADERS = Object.freeze({ 'a2a-version': '1.0' });

/** A `SendMessageRequest` body for one command. */
export function restMessageBody(messageId, text) {
  return JSON.stringify({ message: userMessage(messageId, text) });
}

/**
 * A factory of `message:send` / `message:stream` bodies for one command, each with a fresh
 * UUID-shaped message id, built by concatenation as `messageBodies` builds JSON-RPC ones.
 */
export function restMessageBodies(text) {
  const nextId = createMessageIds();
  const marker = '@@message-id@@';
  const [head, tail] = restMessageBody(marker, text).split(marker);
  return () => head + nextId() + tail;
}

/** The URL of `GetTask` for `taskId` under a REST base URL. */
export function restTaskUrl(restUrl, taskId) {
  return `${restUrl}/tasks/${encodeURIComponent(taskId)}`;
}

/** Sends `echo <text>` to `{restUrl}/message:send` and returns the completed task, or throws. */
export async function restSendEcho(restUrl, text, options) {
  const answer = await post(
    `${restUrl}/message:send`,
    restMessageBody(crypto.randomUUID(), `echo ${text}`),
    options,
  );
  let task;
  try {
    task = JSON.parse(answer.text)?.task;
  } catch {
    // Not JSON: reported below with the answer.
  }
  if (answer.status !== 200 || task?.status?.state !== 'TASK_STATE_COMPLETED') {
    throw new Error(
      `REST message:send "echo ${text}" did not complete: HTTP ${answer.status} ${answer.text.slice(0, 300)}`,
    );
  }
  return task;
}
