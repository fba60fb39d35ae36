/**
 * ListTasks page tokens. A token encodes its own position — the status time and id of the last
 * task of the previous page — rather than referring to a task whose timestamp may change, so that
 * paging stays consistent while tasks are created or updated: new or updated tasks sort before
 * the position and never show up twice. The total counted for the first page travels along, so
 * that later pages cost O(page size) (the total describes the listing as it was when it started).
 * A fingerprint of the filters is included so that a token
 * from another listing (or anything else) is refused instead of silently returning wrong pages.
 */

import { decodeBase64, encodeBase64 } from '../protocol/base64.js';
import { InvalidParamsError } from '../protocol/errors.js';
import type { TaskListCursor } from '../stores/task-store.js';

const VERSION = 1;

/** The listing a token is bound to: who lists (agent, tenant, owner) and with which filters. */
export interface PageTokenFilters {
  readonly scope: {
    readonly agent: string;
    readonly tenant: string;
    /** `null`: every owner's tasks (an access policy's grant). */
    readonly owner: string | null;
  };
  readonly contextId?: string | undefined;
  readonly state?: string | undefined;
  readonly statusTimeFrom?: number | undefined;
}

function fingerprint(filters: PageTokenFilters): string {
  // FNV-1a: tokens are not secrets (scoping is enforced by the query), only misuse is detected.
  const { agent, tenant, owner } = filters.scope;
  const text = [
    agent,
    tenant,
    owner ?? '\u0001every owner',
    filters.contextId ?? '',
    filters.state ?? '',
    filters.statusTimeFrom ?? '',
  ].join('\u0000');
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}

function toBase64Url(text: string): string {
  return encodeBase64(new TextEncoder().encode(text))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

function fromBase64Url(token: string): string {
  return new TextDecoder('utf-8', { fatal: true }).decode(decodeBase64(token));
}

/** Where the next page starts, and the listing's total as counted on its first page. */
export interface PageTokenContent {
  readonly cursor: TaskListCursor;
  readonly totalSize: number;
}

/** Encodes the position after `cursor` for a listing with `filters`. */
export function encodePageToken(content: PageTokenContent, filters: PageTokenFilters): string {
  const { cursor, totalSize } = content;
  return toBase64Url(
    JSON.stringify([VERSION, cursor.statusTime, cursor.id, fingerprint(filters), totalSize]),
  );
}

function invalidToken(): InvalidParamsError {
  return InvalidParamsError.fromViolations([
    {
      field: 'pageToken',
      description:
        'is not a nextPageToken of this listing (tokens are bound to the same contextId, status and statusTimestampAfter); start again without pageToken',
    },
  ]);
}

/** Decodes a token, refusing one that is malformed or was issued for other filters. */
export function decodePageToken(token: string, filters: PageTokenFilters): PageTokenContent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fromBase64Url(token));
  } catch {
    throw invalidToken();
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 5 ||
    parsed[0] !== VERSION ||
    typeof parsed[1] !== 'number' ||
    !Number.isFinite(parsed[1]) ||
    typeof parsed[2] !== 'string' ||
    parsed[3] !== fingerprint(filters) ||
    !Number.isSafeInteger(parsed[4]) ||
    (parsed[4] as number) < 0
  ) {
    throw invalidToken();
  }
  return { cursor: { statusTime: parsed[1], id: parsed[2] }, totalSize: parsed[4] as number };
}
