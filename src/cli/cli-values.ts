/**
 * Parsing of option values shared by commands. Errors are {@link UsageFailure}s: the command
 * prints them with a hint and exits with the usage code.
 */

/** A command-line mistake; the message says which option and what is accepted. */
export class UsageFailure extends Error {
  override readonly name = 'UsageFailure';
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** What a duration option accepts at the least, e.g. a retention of one minute. */
export interface DurationBounds {
  /** The smallest accepted value, in milliseconds. */
  readonly minMs?: number | undefined;
}

/** Writes milliseconds back in the largest unit that divides them: `60000` as `1m`. */
export function formatDuration(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    const size = UNITS[unit] as number;
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

/**
 * Parses a duration such as `250ms`, `30s`, `5m`, `12h`, `7d` into milliseconds. A bare number is
 * refused: `--retention 30` meant as days once purged every finished task, and nothing in the
 * number says which unit was meant.
 */
export function parseDuration(value: string, option: string, bounds: DurationBounds = {}): number {
  const text = value.trim();
  // Zero is zero in every unit, so it alone may go without one (`--timeout 0` for none).
  if (/^0+(?:\.0+)?$/.test(text)) return checkBounds(0, value, option, bounds);
  if (/^\d+(?:\.\d+)?$/.test(text)) {
    throw new UsageFailure(
      `${option} needs a unit: give ${text}s, ${text}m or ${text}d (units: ms, s, m, h, d), got "${value}"`,
    );
  }
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/.exec(text);
  if (!match) {
    throw new UsageFailure(
      `${option} must be a duration like 500ms, 30s, 5m, 12h or 7d, got "${value}"`,
    );
  }
  return checkBounds(
    Math.round(Number(match[1]) * (UNITS[match[2] as string] as number)),
    value,
    option,
    bounds,
  );
}

function checkBounds(ms: number, value: string, option: string, bounds: DurationBounds): number {
  if (bounds.minMs !== undefined && ms < bounds.minMs) {
    throw new UsageFailure(
      `${option} must be at least ${formatDuration(bounds.minMs)}, got "${value}"`,
    );
  }
  return ms;
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
