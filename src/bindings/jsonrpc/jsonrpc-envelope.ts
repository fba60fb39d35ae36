/**
 * The JSON-RPC 2.0 response envelope, written as strings around an already serialized result so
 * that a payload is never stringified twice (a stream event's JSON is spliced in as is).
 *
 * The `id` is echoed as the exact JSON token the client sent: JSON-RPC requires the same value,
 * and a client that parses numbers losslessly (`10000000000000000001`, `1.0`) must find its own
 * token back, which `JSON.stringify(JSON.parse(token))` does not guarantee.
 */

import { A2A_ERROR_DOMAIN, ERROR_INFO_TYPE } from '../../protocol/error-details.js';
import { toJsonRpcError } from '../../protocol/error-serialization.js';
import type { A2AError } from '../../protocol/errors.js';

/** A request id as JSON-RPC allows it. */
export type JsonRpcId = string | number | null;

/** The id token of responses to requests whose id could not be read (spec: `null`). */
export const NULL_ID_TOKEN = 'null';

/** `{"jsonrpc":"2.0","id":<id>,"result":<resultJson>}` */
export function resultEnvelope(idToken: string, resultJson: string): string {
  return '{"jsonrpc":"2.0","id":' + idToken + ',"result":' + resultJson + '}';
}

/** `{"jsonrpc":"2.0","id":<id>,"error":{code, message, data?}}` */
export function errorEnvelope(idToken: string, error: A2AError): string {
  return (
    '{"jsonrpc":"2.0","id":' + idToken + ',"error":' + JSON.stringify(toJsonRpcError(error)) + '}'
  );
}

/**
 * The JSON-RPC code of a call refused before its operation for who is calling or how often: no
 * credentials or wrong ones (HTTP 401), not allowed (403), over a limit (429). The spec names no
 * code for them ("JSON-RPC custom error", spec 3.3.2); they are not Invalid Request (-32600: the
 * request was valid), and A2A's own errors hold -32001 to -32099, so this is JSON-RPC's
 * implementation-defined server error -32000, its `google.rpc.ErrorInfo` reason the refusal's
 * `google.rpc.Code` name (`UNAUTHENTICATED`, `PERMISSION_DENIED`, `RESOURCE_EXHAUSTED`).
 */
export const REFUSED_CALL_CODE = -32000;

/** Whether a refusal of this HTTP status is one of a call ({@link REFUSED_CALL_CODE}). */
export function isCallRefusal(status: number): boolean {
  return status === 401 || status === 403 || status === 429;
}

/** The error envelope of a call refused for who is calling or how often. */
export function refusedCallEnvelope(
  idToken: string,
  refusal: { readonly code: string; readonly message: string },
): string {
  const error = {
    code: REFUSED_CALL_CODE,
    message: refusal.message,
    data: [{ '@type': ERROR_INFO_TYPE, reason: refusal.code, domain: A2A_ERROR_DOMAIN }],
  };
  return '{"jsonrpc":"2.0","id":' + idToken + ',"error":' + JSON.stringify(error) + '}';
}

/**
 * The JSON token to echo for a request id. Strings and `null` re-serialize exactly; a number is
 * looked up in the request text so that its spelling survives (only the top-level `id` member
 * is considered, and only a token that parses to the same value).
 */
export function idTokenOf(requestText: string, id: JsonRpcId): string {
  if (typeof id === 'number') {
    // A safe integer's canonical token is the same JSON value as whatever the client wrote
    // (`1` for `1.0` or `1e0`); only other numbers are looked up, so precision is never lost.
    if (Number.isSafeInteger(id)) return String(id);
    return findNumberIdToken(requestText, id) ?? JSON.stringify(id);
  }
  return JSON.stringify(id);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

function isWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

function skipWhitespace(text: string, index: number): number {
  while (index < text.length && isWhitespace(text.charCodeAt(index))) index++;
  return index;
}

/** Index just after the string starting at `start` (a quote), or -1 when unterminated. */
function endOfString(text: string, start: number): number {
  let quote = text.indexOf('"', start + 1);
  while (quote !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    quote = text.indexOf('"', quote + 1);
  }
  return -1;
}

/** Index just after the JSON value starting at `start`, or -1 when malformed. */
function endOfValue(text: string, start: number): number {
  const first = text.charCodeAt(start);
  if (first === QUOTE) return endOfString(text, start);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    for (let i = start; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === QUOTE) {
        const end = endOfString(text, i);
        if (end === -1) return -1;
        i = end - 1;
      } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
        depth++;
      } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    return -1;
  }
  let i = start;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === COMMA || code === CLOSE_BRACE || code === CLOSE_BRACKET || isWhitespace(code)) {
      break;
    }
    i++;
  }
  return i === start ? -1 : i;
}

function keyIsId(text: string, start: number, end: number): boolean {
  if (end - start === 4) return text.startsWith('"id"', start);
  // A key spelled with escapes (`"\u0069d"`) is rare enough to decode the slow way.
  const escape = text.indexOf('\\', start);
  return escape !== -1 && escape < end && JSON.parse(text.slice(start, end)) === 'id';
}

/**
 * Walks the members of the top-level object, skipping values without parsing them, until an
 * `id` member whose token parses to `id`. Returns `undefined` when there is none (which cannot
 * happen for text that `JSON.parse` accepted and whose `id` is `id`, but costs nothing to guard).
 */
function findNumberIdToken(text: string, id: number): string | undefined {
  let i = skipWhitespace(text, 0);
  if (text.charCodeAt(i) !== OPEN_BRACE) return undefined;
  i++;
  for (;;) {
    i = skipWhitespace(text, i);
    if (text.charCodeAt(i) !== QUOTE) return undefined;
    const keyEnd = endOfString(text, i);
    if (keyEnd === -1) return undefined;
    const isId = keyIsId(text, i, keyEnd);
    i = skipWhitespace(text, keyEnd);
    if (text.charCodeAt(i) !== COLON) return undefined;
    const valueStart = skipWhitespace(text, i + 1);
    const valueEnd = endOfValue(text, valueStart);
    if (valueEnd === -1) return undefined;
    if (isId) {
      const token = text.slice(valueStart, valueEnd);
      if (Number(token) === id) return token;
    }
    i = skipWhitespace(text, valueEnd);
    if (text.charCodeAt(i) !== COMMA) return undefined;
    i++;
  }
}
