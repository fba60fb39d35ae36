/**
 * Parsing of option values shared by commands. Errors are {@link UsageFailure}s: the command
 * prints them with a hint and exits with the usage code.
 */

/** A command-line mistake; the message says which option and what is accepted. */
export class UsageFailure extends Error {
  override readonly name = 'UsageFailure';
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Parses a duration such as `250ms`, `30s`, `5m`, `12h`, `7d` (a bare number is milliseconds)
 * into milliseconds.
 */
export function parseDuration(value: string, option: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/.exec(value.trim());
  if (!match) {
    throw new UsageFailure(
      `${option} must be a duration like 500ms, 30s, 5m, 12h or 7d, got "${value}"`,
    );
  }
  return Math.round(Number(match[1]) * (UNITS[match[2] ?? 'ms'] as number));
}

/** Parses a whole number of at least 1, e.g. `--limit 20`. */
export function parsePositiveInteger(value: string, option: string): number {
  if (!/^\d{1,9}$/.test(value.trim()) || Number(value) < 1) {
    throw new UsageFailure(`${option} must be a whole number of at least 1, got "${value}"`);
  }
  return Number(value);
}

/** Parses a whole number of at least 0, e.g. `--history 0`. */
export function parseNonNegativeInteger(value: string, option: string): number {
  if (!/^\d{1,9}$/.test(value.trim())) {
    throw new UsageFailure(`${option} must be a whole number, got "${value}"`);
  }
  return Number(value);
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Parses a `--header 'Name: value'` into its name and value. */
export function parseHeader(value: string): [name: string, value: string] {
  const colon = value.indexOf(':');
  const name = colon < 0 ? '' : value.slice(0, colon).trim();
  if (!HEADER_NAME.test(name)) {
    throw new UsageFailure(`--header must look like 'Name: value', got "${value}"`);
  }
  return [name, value.slice(colon + 1).trim()];
}

/** Parses the agent URL argument: an absolute http(s) URL. */
export function parseAgentUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageFailure(
      `<url> must be an absolute URL like http://localhost:41241, got "${value}"`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageFailure(`<url> must use http or https, got "${value}"`);
  }
  return value;
}
