/**
 * Timestamps in the protocol's form (ISO-8601 UTC, millisecond precision), made and read cheaply:
 * formatting a `Date` costs far more than reading the clock, and many events share a millisecond,
 * so the last value is reused in both directions.
 */

let lastMillis = NaN;
let lastText = '';

/** The current instant as a protocol timestamp, e.g. `"2026-11-29T16:20:22.513Z"`. */
export function currentTimestamp(): string {
  const now = Date.now();
  if (now !== lastMillis) {
    lastMillis = now;
    lastText = new Date(now).toISOString();
  }
  return lastText;
}

let parsedText = '';
let parsedMillis = NaN;

/** Epoch milliseconds of a protocol timestamp, `NaN` when it is not one. */
export function timestampMillis(text: string): number {
  if (text !== parsedText) {
    parsedText = text;
    parsedMillis = Date.parse(text);
  }
  return parsedMillis;
}
