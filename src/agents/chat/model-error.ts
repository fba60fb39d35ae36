/**
 * Why a call to the model failed, in words fit for the client of the A2A task: the chat agent
 * fails the task with this message as its reason. It therefore never holds the API key, the
 * model server's URL or host, or any URL the server's own error text mentions — only what the
 * failure was and what to do about it.
 */

import { LocalError } from '../../index.js';

/** A failed model call; the message is safe to show to the task's client. */
export class ModelError extends LocalError {}

/** What may not appear in a reason: the key, the endpoint and its host. */
export interface Secrets {
  readonly apiKey: string | undefined;
  readonly baseUrl: string;
}

const URL_PATTERN = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi;
const MAX_DETAIL = 300;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A message of the model server (an error's `message`), cut down to a safe detail: URLs, the
 * key and the endpoint's host removed, one line, at most 300 characters.
 */
export function safeDetail(text: string, secrets: Secrets): string {
  let detail = text.replace(URL_PATTERN, '[url]');
  const hidden = [secrets.baseUrl, new URL(secrets.baseUrl).host];
  if (secrets.apiKey !== undefined && secrets.apiKey !== '') hidden.push(secrets.apiKey);
  for (const secret of hidden) {
    detail = detail.replace(new RegExp(escapeRegExp(secret), 'gi'), '[redacted]');
  }
  // Keys are often echoed in part ("sk-ab...yz"): anything shaped like a key goes too.
  detail = detail.replace(/\b(sk|key|token)[-_][A-Za-z0-9*._-]{6,}/gi, '[redacted]');
  detail = detail.replace(/\s+/g, ' ').trim();
  return detail.length > MAX_DETAIL ? `${detail.slice(0, MAX_DETAIL)}…` : detail;
}

/** The reason of a failed connection, from the error `fetch` rejected with. */
export function connectionFailure(error: unknown): ModelError {
  const cause =
    error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  switch (code) {
    case 'ECONNREFUSED':
      return new ModelError('The model server refused the connection; is it running?');
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ModelError("The model server's host name could not be resolved");
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return new ModelError('The model server closed the connection before answering');
    default:
      if (code?.startsWith('ERR_TLS') === true || code?.includes('CERT') === true) {
        return new ModelError(`The TLS connection to the model server failed (${code})`);
      }
      return new ModelError(
        `The model server could not be reached${code === undefined ? '' : ` (${code})`}`,
      );
  }
}

/** The reason of an HTTP error status, with the server's own message when it is safe to show. */
export function statusFailure(status: number, body: string, secrets: Secrets): ModelError {
  if (status === 401 || status === 403) {
    return new ModelError(
      `The model server refused the request (HTTP ${status}): check the API key in TANDEM_MODEL_API_KEY`,
    );
  }
  if (status >= 500) return new ModelError(`The model server failed (HTTP ${status})`);
  const detail = errorMessageOf(body);
  const what =
    status === 429
      ? 'The model server is rate limiting requests'
      : status === 404
        ? 'The model server does not know this model or endpoint'
        : 'The model server refused the request';
  return new ModelError(
    `${what} (HTTP ${status})${detail === undefined ? '' : `: ${safeDetail(detail, secrets)}`}`,
  );
}

/** `error.message` (or `error` when it is a string) of an OpenAI-style error body. */
export function errorMessageOf(body: string | object): string | undefined {
  let value: unknown = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch {
      return undefined;
    }
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const error = (value as { error?: unknown }).error;
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null) {
    const message = (error as { message?: unknown }).message;
    if (typeof message === 'string') return message;
  }
  return undefined;
}
