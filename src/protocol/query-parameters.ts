/**
 * The query string of the HTTP+JSON binding (spec 11.5): GET and DELETE carry their request's
 * fields as query parameters. This turns them into the request object that `parseMessage` then
 * checks, by the message's descriptor: the decoder reads the syntax of each value (is it an
 * integer, a boolean), the validator its meaning (ranges, enum names, timestamps), so that the
 * rules live in one place.
 */

import type { FieldDescriptor, MessageDescriptor } from './descriptor.js';
import type { FieldViolation } from './error-details.js';
import { InvalidParamsError } from './errors.js';
import { fieldNamed } from './field-names.js';
import { messageDescriptors } from './generated/descriptors.js';
import type { MessageTypes } from './generated/types.js';
import type { JsonValue } from './json.js';
import { describeValue } from './schemas.js';
import { VERSION_HEADER } from './version.js';

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const DECIMAL_INTEGER = /^-?\d+$/;
const SERVICE_PARAMETER = VERSION_HEADER.toLowerCase();

/** What a message field becomes in a query string, or why it cannot be one. */
function decodeValue(
  field: FieldDescriptor,
  text: string,
): { value: JsonValue } | { error: string } {
  switch (field.type) {
    case 'string':
    case 'bytes':
    case 'enum':
    case 'timestamp':
      // Kept as strings: the validator checks base64, enum names and ISO 8601 like in a body.
      return { value: text };
    case 'bool':
      if (text === 'true') return { value: true };
      if (text === 'false') return { value: false };
      return { error: `must be true or false, got ${describeValue(text)}` };
    case 'int32': {
      const number = DECIMAL_INTEGER.test(text) ? Number(text) : NaN;
      if (Number.isNaN(number)) {
        return { error: `must be an integer, got ${describeValue(text)}` };
      }
      if (number < INT32_MIN || number > INT32_MAX) {
        return {
          error: `must be an integer between ${INT32_MIN} and ${INT32_MAX}, got ${describeValue(text)}`,
        };
      }
      return { value: number === 0 ? 0 : number };
    }
    case 'struct':
    case 'value':
    case 'message':
      return { error: 'is an object, which a query parameter cannot hold; send it in a POST body' };
  }
}

function descriptorOf(messageType: string): MessageDescriptor {
  const descriptor = (messageDescriptors as Record<string, MessageDescriptor | undefined>)[
    messageType
  ];
  if (descriptor === undefined) throw new TypeError(`Unknown proto message ${messageType}`);
  return descriptor;
}

/**
 * Decodes the query parameters of a GET or DELETE request into the fields of `messageType`, by
 * spec 11.5:
 *
 * - a parameter is named by the field's JSON name (`pageSize`) or its proto name (`page_size`);
 *   both for one field is an error, and so is a non-repeated field given more than once;
 * - strings (and enum names, timestamps, base64 bytes) are taken as they are — percent-decoding
 *   is URLSearchParams's; booleans are `true` or `false`; integers are decimal and in int32
 *   range (`1.5`, `1e3`, `0x10`, `+1` and an empty value are not);
 * - a repeated field takes every occurrence of its parameter, each split at commas;
 * - a message, map, Struct or Value field cannot be expressed and is an error;
 * - unknown parameters are ignored (spec 5.7), and so is the `A2A-Version` service parameter in
 *   any case.
 *
 * Path variables are the binding's: it adds them to the result. The result uses JSON names and
 * is not validated yet; pass it to `parseMessage`, which checks ranges, enum names, timestamps
 * and required fields.
 *
 * @throws InvalidParamsError listing every invalid parameter (a `BadRequest` field violation
 *   each, named as given: `pageSize: must be an integer, got "ten"`).
 */
export function decodeQueryParameters(
  messageType: keyof MessageTypes,
  query: URLSearchParams | string,
): { [field: string]: JsonValue } {
  const message = descriptorOf(messageType);
  const params = typeof query === 'string' ? new URLSearchParams(query) : query;
  const values = new Map<FieldDescriptor, { names: Set<string>; texts: string[] }>();
  for (const [name, text] of params) {
    if (name.toLowerCase() === SERVICE_PARAMETER) continue;
    const field = fieldNamed(message, name);
    if (field === undefined) continue;
    let entry = values.get(field);
    if (entry === undefined) {
      entry = { names: new Set(), texts: [] };
      values.set(field, entry);
    }
    entry.names.add(name);
    entry.texts.push(text);
  }
  const out: { [field: string]: JsonValue } = {};
  const violations: FieldViolation[] = [];
  for (const [field, { names, texts }] of values) {
    const [name = field.name] = names;
    if (names.size > 1) {
      const description = `given twice, as ${field.name} and ${field.protoName}`;
      violations.push({ field: field.name, description });
      continue;
    }
    if (field.map) {
      const description = 'is a map, which a query parameter cannot hold; send it in a POST body';
      violations.push({ field: name, description });
      continue;
    }
    if (!field.repeated && texts.length > 1) {
      const description = `must be given once, got ${texts.length} values`;
      violations.push({ field: name, description });
      continue;
    }
    const items = field.repeated ? texts.flatMap((text) => text.split(',')) : texts;
    const decoded: JsonValue[] = [];
    for (const text of items) {
      const result = decodeValue(field, text);
      if ('error' in result) violations.push({ field: name, description: result.error });
      else decoded.push(result.value);
    }
    if (decoded.length === items.length) {
      out[field.name] = field.repeated ? decoded : (decoded[0] as JsonValue);
    }
  }
  if (violations.length > 0) throw InvalidParamsError.fromViolations(violations);
  return out;
}
