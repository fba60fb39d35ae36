/**
 * The `A2A-Version` service parameter (spec 3.6): `Major.Minor`, where a patch part must not
 * affect negotiation and an empty or missing value means 0.3.
 */

/** A protocol version reduced to `Major.Minor`. */
export interface ProtocolVersion {
  readonly major: number;
  readonly minor: number;
  /** `"<major>.<minor>"`, e.g. `"1.0"`. */
  readonly text: string;
}

/** The version this library speaks. */
export const CURRENT_PROTOCOL_VERSION = '1.0';

/** The version assumed when a request carries no `A2A-Version` (spec 3.6.2). */
export const LEGACY_PROTOCOL_VERSION = '0.3';

/** The header (and query parameter) that carries the version. */
export const VERSION_HEADER = 'A2A-Version';

const VERSION_PATTERN = /^(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})(?:\.(0|[1-9]\d{0,8}))?$/;

/**
 * Parses an `A2A-Version` value. Surrounding spaces and a patch part are ignored (`" 1.0.2 "` is
 * 1.0); `undefined`, `null` or an empty value means 0.3. Returns `undefined` for anything that is
 * not `Major.Minor[.Patch]`, so the caller can answer `VersionNotSupportedError` with the value it
 * got.
 */
export function parseProtocolVersion(
  value: string | null | undefined,
): ProtocolVersion | undefined {
  const trimmed = (value ?? '').trim();
  if (trimmed === '') return { major: 0, minor: 3, text: LEGACY_PROTOCOL_VERSION };
  const match = VERSION_PATTERN.exec(trimmed);
  if (!match) return undefined;
  const major = Number(match[1]);
  const minor = Number(match[2]);
  return { major, minor, text: `${major}.${minor}` };
}
