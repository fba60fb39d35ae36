/**
 * Reading the fields of a 0.3 value that arrived as JSON: each reader checks one field's type and
 * records a problem with its path instead of throwing, so that a translation reports every bad
 * field at once (see `untranslatable.ts`).
 */

import type { JsonValue, Struct } from '../../../protocol/json.js';
import { isObject, type Issues } from './untranslatable.js';

/** A string field; `undefined` when absent (a problem when `required`). */
export function readString(
  value: Record<string, unknown>,
  key: string,
  path: string,
  issues: Issues,
  required = false,
): string | undefined {
  const field = value[key];
  if (field === undefined || field === null) {
    if (required) issues.add(join(path, key), 'is required');
    return undefined;
  }
  if (typeof field !== 'string') {
    issues.add(join(path, key), `must be a string, got ${typeName(field)}`);
    return undefined;
  }
  return field;
}

/** A boolean field. */
export function readBoolean(
  value: Record<string, unknown>,
  key: string,
  path: string,
  issues: Issues,
): boolean | undefined {
  const field = value[key];
  if (field === undefined || field === null) return undefined;
  if (typeof field !== 'boolean') {
    issues.add(join(path, key), `must be a boolean, got ${typeName(field)}`);
    return undefined;
  }
  return field;
}

/** An integer field. */
export function readInteger(
  value: Record<string, unknown>,
  key: string,
  path: string,
  issues: Issues,
): number | undefined {
  const field = value[key];
  if (field === undefined || field === null) return undefined;
  if (typeof field !== 'number' || !Number.isInteger(field)) {
    issues.add(join(path, key), `must be an integer, got ${typeName(field)}`);
    return undefined;
  }
  return field;
}

/** An array of strings. */
export function readStrings(
  value: Record<string, unknown>,
  key: string,
  path: string,
  issues: Issues,
): string[] | undefined {
  const field = value[key];
  if (field === undefined || field === null) return undefined;
  if (!Array.isArray(field) || field.some((entry) => typeof entry !== 'string')) {
    issues.add(join(path, key), 'must be an array of strings');
    return undefined;
  }
  return [...(field as string[])];
}

/** A JSON object field (`metadata`, `data`). */
export function readStruct(
  value: Record<string, unknown>,
  key: string,
  path: string,
  issues: Issues,
): Struct | undefined {
  const field = value[key];
  if (field === undefined || field === null) return undefined;
  if (!isObject(field)) {
    issues.add(join(path, key), `must be a JSON object, got ${typeName(field)}`);
    return undefined;
  }
  return field as Struct;
}

/** An object field, for the caller to read further. */
export function readObject(
  value: Record<string, unknown>,
  key: string,
  path: string,
  issues: Issues,
  required = false,
): Record<string, unknown> | undefined {
  const field = value[key];
  if (field === undefined || field === null) {
    if (required) issues.add(join(path, key), 'is required');
    return undefined;
  }
  if (!isObject(field)) {
    issues.add(join(path, key), `must be an object, got ${typeName(field)}`);
    return undefined;
  }
  return field;
}

/** An array field, each entry read by `read`. */
export function readArray<T>(
  value: Record<string, unknown>,
  key: string,
  path: string,
  issues: Issues,
  read: (entry: unknown, path: string) => T | undefined,
  required = false,
): T[] | undefined {
  const field = value[key];
  if (field === undefined || field === null) {
    if (required) issues.add(join(path, key), 'is required');
    return undefined;
  }
  if (!Array.isArray(field)) {
    issues.add(join(path, key), `must be an array, got ${typeName(field)}`);
    return undefined;
  }
  const out: T[] = [];
  field.forEach((entry: unknown, index) => {
    const read1 = read(entry, `${join(path, key)}[${index}]`);
    if (read1 !== undefined) out.push(read1);
  });
  return out;
}

/** `a.b`, or `b` at the root. */
export function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** The JSON type of a value, for messages. */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}

/** `T` with its possibly-undefined members optional instead (what {@link defined} returns). */
export type Defined<T> = {
  [K in keyof T as undefined extends T[K] ? never : K]: T[K];
} & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/** Copies the keys whose values are defined, so that absent fields stay absent. */
export function defined<T extends object>(value: T): Defined<T> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) if (field !== undefined) out[key] = field;
  return out as Defined<T>;
}

export type { JsonValue };
