/**
 * The A2A service parameters (spec 3.2.6), read the same way by every server binding: the
 * `A2A-Version` and `A2A-Extensions` request headers (spec 9.2, 11.2, 14.2) or gRPC metadata of the
 * same names (spec 10.2), with `A2A-Version` also accepted as a query parameter over HTTP (spec
 * 3.6.1). The header wins when both are sent.
 */

import { VersionNotSupportedError } from '../../protocol/errors.js';
import {
  CURRENT_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSION,
  parseProtocolVersion,
  type ProtocolVersion,
} from '../../protocol/version.js';
import type { HeaderReader } from './http-exchange.js';

export type { HeaderReader };

export { EXTENSIONS_HEADER } from '../../protocol/extensions-header.js';

/** The versions this server answers; anything else is `VersionNotSupportedError` (spec 3.6.2). */
export const SUPPORTED_VERSIONS: readonly string[] = [CURRENT_PROTOCOL_VERSION];

const SUPPORTED_VERSIONS_TEXT = SUPPORTED_VERSIONS.join(',');

/** Longest requested version echoed back in an error, so that a client cannot make us echo a novel. */
const MAX_ECHOED_VERSION = 32;

/**
 * The raw `A2A-Version` of a request: the header when present (even empty, which means 0.3),
 * else the query parameter (matched case-insensitively, as header names are), else `undefined`.
 * `query` is the raw query string without its `?`.
 */
export function readVersionParameter(
  headers: HeaderReader,
  query: string | undefined,
): string | undefined {
  const header = headers.get('a2a-version');
  if (header !== null && header !== undefined) return header;
  if (query === undefined || query === '') return undefined;
  for (const [name, value] of new URLSearchParams(query)) {
    if (name.toLowerCase() === 'a2a-version') return value;
  }
  return undefined;
}

/**
 * Checks the requested version against {@link SUPPORTED_VERSIONS} and returns it. A patch part
 * and surrounding spaces are ignored (`" 1.0.3 "` is 1.0); an empty or missing value is 0.3.
 * `olderVersionHint` ends the refusal of a 0.3 request (see `AgentEndpoint.olderVersionHint`).
 *
 * @throws VersionNotSupportedError whose `ErrorInfo` metadata names the supported versions
 *   (`supportedVersions`, comma-separated) and the requested one (`requestedVersion`).
 */
export function negotiateVersion(
  raw: string | undefined,
  olderVersionHint?: string,
): ProtocolVersion {
  const version = parseProtocolVersion(raw);
  if (version !== undefined && SUPPORTED_VERSIONS.includes(version.text)) return version;
  const requested =
    version?.text ??
    (raw === undefined ? LEGACY_PROTOCOL_VERSION : raw.trim().slice(0, MAX_ECHOED_VERSION));
  const legacy = requested === LEGACY_PROTOCOL_VERSION;
  const problem =
    raw === undefined || raw.trim() === ''
      ? `A request without A2A-Version is version ${LEGACY_PROTOCOL_VERSION}, which this agent does not support`
      : `A2A protocol version ${JSON.stringify(requested)} is not supported by this agent`;
  const hint = legacy && olderVersionHint !== undefined ? `; ${olderVersionHint}` : '';
  throw new VersionNotSupportedError(
    `${problem}; send the header "A2A-Version: ${CURRENT_PROTOCOL_VERSION}"${hint}`,
    { metadata: { supportedVersions: SUPPORTED_VERSIONS_TEXT, requestedVersion: requested } },
  );
}

/**
 * Splits an `A2A-Extensions` value into URIs: comma-separated, trimmed, empty entries dropped,
 * duplicates removed (first occurrence kept). Returns a shared empty array for no header.
 */
export function parseExtensionsHeader(value: string | null | undefined): readonly string[] {
  if (value === null || value === undefined) return NO_EXTENSIONS;
  const uris: string[] = [];
  for (const part of value.split(',')) {
    const uri = part.trim();
    if (uri !== '' && !uris.includes(uri)) uris.push(uri);
  }
  return uris.length === 0 ? NO_EXTENSIONS : uris;
}

const NO_EXTENSIONS: readonly string[] = Object.freeze([]);

/**
 * Echoes the extensions a call activated in the response headers (spec 3.3.4): `A2A-Extensions`,
 * and for a 0.3 client also `X-A2A-Extensions`, which 0.3 read. Nothing when none were.
 */
export function echoExtensions(
  headers: Record<string, string>,
  activated: readonly string[],
  compatVersion?: string,
): void {
  if (activated.length === 0) return;
  const value = activated.join(', ');
  headers['a2a-extensions'] = value;
  if (compatVersion !== undefined) headers['x-a2a-extensions'] = value;
}
