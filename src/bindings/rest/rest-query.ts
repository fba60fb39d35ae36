/**
 * Query parameters of a GET or DELETE request as the request message's fields (spec 11.5): each
 * parameter named after a field (its camelCase name or its proto name) becomes that field with the
 * value converted by the field's kind; the validator then checks the message as it checks a body.
 */

import { InvalidParamsError } from '../../protocol/errors.js';
import { messageDescriptors } from '../../protocol/generated/descriptors.js';
import type { FieldDescriptor, MessageDescriptor } from '../../protocol/descriptor.js';

const INTEGER = /^-?(0|[1-9]\d{0,9})$/;

/** A converted value, or why the text is not one. */
type Converted = { readonly value: unknown } | { readonly problem: string };

function convert(field: FieldDescriptor, raw: string): Converted {
  switch (field.type) {
    case 'int32': {
      const value = INTEGER.test(raw) ? Number(raw) : NaN;
      if (!Number.isInteger(value) || value < -2147483648 || value > 2147483647) {
        return { problem: `must be an integer, got ${JSON.stringify(raw)}` };
      }
      return { value };
    }
    case 'bool':
      if (raw === 'true') return { value: true };
      if (raw === 'false') return { value: false };
      return { problem: `must be true or false, got ${JSON.stringify(raw)}` };
    case 'message':
    case 'struct':
    case 'value':
      return { problem: 'is an object, which a query parameter cannot carry; use a request body' };
    default:
      return { value: raw };
  }
}

/**
 * The fields `query` sets on a `messageType` request.
 *
 * @throws InvalidParamsError naming each parameter whose value is invalid, or given twice.
 */
export function decodeQueryParameters(messageType: string, query: string): Record<string, unknown> {
  const descriptor: MessageDescriptor =
    messageDescriptors[messageType as keyof typeof messageDescriptors];
  const fields: Record<string, unknown> = {};
  if (query === '') return fields;
  const violations: { field: string; description: string }[] = [];
  const seen = new Map<string, string>();
  for (const [name, raw] of new URLSearchParams(query)) {
    const field = descriptor.fields.find((f) => f.name === name || f.protoName === name);
    if (field === undefined) continue;
    const earlier = seen.get(field.name);
    if (earlier !== undefined && (earlier !== name || field.repeated !== true)) {
      violations.push({
        field: name,
        description:
          earlier === name
            ? 'is given more than once and is not a repeated field'
            : `is given twice, as ${earlier} and ${name}`,
      });
      continue;
    }
    seen.set(field.name, name);
    const items = field.repeated === true ? raw.split(',') : [raw];
    const values: unknown[] = [];
    for (const item of items) {
      const converted = convert(field, item);
      if ('problem' in converted) violations.push({ field: name, description: converted.problem });
      else values.push(converted.value);
    }
    if (field.repeated === true) {
      fields[field.name] = [...((fields[field.name] as unknown[] | undefined) ?? []), ...values];
    } else if (values.length === 1) {
      fields[field.name] = values[0];
    }
  }
  if (violations.length > 0) throw InvalidParamsError.fromViolations(violations);
  return fields;
}
