/**
 * The JSON Canonicalization Scheme (RFC 8785), which agent card signatures are computed over
 * (spec 8.4.1): object members sorted by the UTF-16 code units of their names, no whitespace, and
 * strings and numbers exactly as ECMAScript's `JSON.stringify` writes them — which RFC 8785 adopts
 * as its serialization: only `"`, `\` and control characters are escaped (non-ASCII text and
 * `<`, `>`, `&` stay as they are), and numbers take their shortest round-trip form (`1e+21`,
 * `4.5`, `-0` as `0`).
 */

import { UsageError } from './local-errors.js';

/** Compares two member names by UTF-16 code units, as RFC 8785 3.2.3 orders them. */
function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function write(value: unknown, path: string, out: string[]): void {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') {
    out.push(JSON.stringify(value));
    return;
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      throw new UsageError(`${path} is ${String(value)}, which JSON (and RFC 8785) cannot express`);
    }
    out.push(JSON.stringify(value));
    return;
  }
  if (Array.isArray(value)) {
    out.push('[');
    value.forEach((item: unknown, index) => {
      if (index > 0) out.push(',');
      write(item === undefined ? null : item, `${path}[${index}]`, out);
    });
    out.push(']');
    return;
  }
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const names = Object.keys(record)
      .filter((name) => record[name] !== undefined)
      .sort(byCodeUnits);
    out.push('{');
    names.forEach((name, index) => {
      if (index > 0) out.push(',');
      out.push(JSON.stringify(name), ':');
      write(record[name], `${path}.${name}`, out);
    });
    out.push('}');
    return;
  }
  throw new UsageError(`${path} is a ${typeof value}, which JSON cannot express`);
}

/**
 * The RFC 8785 canonical form of a JSON value. Members whose value is `undefined` are left out
 * (as `JSON.stringify` does).
 *
 * @throws UsageError for values JSON cannot express (NaN, Infinity, functions, bigints).
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  write(value, '$', out);
  return out.join('');
}
