/**
 * Plain JSON, as `google.protobuf.Value` is written in ProtoJSON: any JSON value, `null` included.
 */
export type JsonValue =
  string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** `google.protobuf.Struct` in ProtoJSON: a JSON object with string keys. */
export type Struct = { [key: string]: JsonValue };

/**
 * `google.protobuf.Timestamp` in ProtoJSON: an RFC 3339 / ISO-8601 UTC instant with a `Z` suffix,
 * e.g. `"2025-10-28T10:30:00.000Z"` (spec 5.6.1).
 */
export type Timestamp = string;
