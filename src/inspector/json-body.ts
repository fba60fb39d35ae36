/**
 * Reading the page's JSON requests: a bounded body, parsed, and fields read with checks that
 * name the field and say what is wrong, so that a bad request changes nothing and says why.
 */

import type { IncomingMessage } from 'node:http';
import { InspectorInputError } from './inspector-errors.js';

/** The largest request body, in bytes: a file part is sent inline, base64. */
export const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

/** A JSON object from the page. */
export type JsonObject = Readonly<Record<string, unknown>>;

/** Reads and parses the body of `request`. */
export async function readJsonBody(request: IncomingMessage): Promise<JsonObject> {
  const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new InspectorInputError('API calls send Content-Type: application/json');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > MAX_REQUEST_BYTES) {
      throw new InspectorInputError(`The request is larger than ${MAX_REQUEST_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (error) {
    throw new InspectorInputError('The request body is not JSON', { cause: error });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InspectorInputError('The request body must be a JSON object');
  }
  return value as JsonObject;
}

/** A required non-empty string field. */
export function stringField(body: JsonObject, name: string): string {
  const value = body[name];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new InspectorInputError(`${name} is required (a non-empty string)`);
  }
  return value.trim();
}

/** An optional string field; empty counts as absent. */
export function optionalString(body: JsonObject, name: string): string | undefined {
  const value = body[name];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new InspectorInputError(`${name} must be a string`);
  return value.trim() === '' ? undefined : value.trim();
}

/** An optional integer field within bounds. */
export function optionalInteger(
  body: JsonObject,
  name: string,
  min: number,
  max: number,
): number | undefined {
  const value = body[name];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new InspectorInputError(`${name} must be an integer from ${min} to ${max}`);
  }
  return value;
}
