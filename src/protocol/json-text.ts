/**
 * Serialize once. A protocol object whose JSON is already known (a finished task kept by its
 * store as JSON) carries that text under a private, non-enumerable symbol, and bindings splice
 * it into their envelopes instead of serializing the object again. The object must not change
 * after the text is attached; every producer attaches it to a fresh object it hands over.
 */

const JSON_TEXT = Symbol('tandem.jsonText');

/** Attaches the JSON text of `value` (exactly `JSON.stringify(value)`), and returns `value`. */
export function withJsonText<T extends object>(value: T, json: string): T {
  Object.defineProperty(value, JSON_TEXT, { value: json });
  return value;
}

function textOf(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null
    ? ((value as { [JSON_TEXT]?: string })[JSON_TEXT] ?? undefined)
    : undefined;
}

/**
 * `JSON.stringify(value)`, reusing attached texts: of `value` itself, or of the task or message
 * of a `{ task }` / `{ message }` wrapper (a `SendMessageResponse`, a `StreamResponse`).
 */
export function stringifyProtocolValue(value: unknown): string {
  const own = textOf(value);
  if (own !== undefined) return own;
  if (typeof value === 'object' && value !== null) {
    const record = value as { task?: unknown; message?: unknown };
    if (record.task !== undefined) {
      const task = textOf(record.task);
      if (task !== undefined && Object.keys(value).length === 1) return `{"task":${task}}`;
    }
  }
  return JSON.stringify(value);
}
