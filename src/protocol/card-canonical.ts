/**
 * The payload an agent card signature covers (spec 8.4.1): the card without `signatures`, with
 * every field that holds its default value removed unless the proto marks it `REQUIRED` or
 * `optional` (explicit presence), then canonicalized with RFC 8785. Defaults are the proto3 ones:
 * `""`, `0`, `false`, the first enum value, empty repeated fields and maps. Message-typed fields
 * (`Struct` included) have presence: one that is set stays, even when empty. Fields the card's
 * schema does not know are kept as they are (a newer signer may know them).
 */

import type { MessageDescriptor } from './descriptor.js';
import { enumDescriptors, messageDescriptors } from './generated/descriptors.js';
import type { AgentCard } from './generated/types.js';
import { canonicalJson } from './jcs.js';

function descriptorOf(name: string | undefined): MessageDescriptor | undefined {
  return name === undefined
    ? undefined
    : (messageDescriptors as Record<string, MessageDescriptor>)[name];
}

function isDefault(value: unknown, enumName: string | undefined): boolean {
  if (value === '' || value === 0 || value === false) return true;
  if (enumName !== undefined) {
    const values = (enumDescriptors as Record<string, { values: readonly string[] }>)[enumName];
    return values?.values[0] === value;
  }
  return false;
}

function prune(value: unknown, descriptor: MessageDescriptor | undefined): unknown {
  if (descriptor === undefined || typeof value !== 'object' || value === null) return value;
  const source = value as Record<string, unknown>;
  const result: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(source)) {
    if (field === undefined) continue;
    const spec = descriptor.fields.find((f) => f.name === key);
    if (spec === undefined) {
      result[key] = field;
      continue;
    }
    const kept = spec.required === true || spec.presence === true || spec.oneof !== undefined;
    const nested = spec.type === 'message' ? descriptorOf(spec.typeName) : undefined;
    if (spec.repeated === true && Array.isArray(field)) {
      if (field.length === 0 && !kept) continue;
      result[key] = field.map((item: unknown) => prune(item, nested));
    } else if (spec.map === true && typeof field === 'object' && field !== null) {
      const entries = Object.entries(field as Record<string, unknown>);
      if (entries.length === 0 && !kept) continue;
      result[key] = Object.fromEntries(entries.map(([k, v]) => [k, prune(v, nested)]));
    } else if (spec.type === 'message' || spec.type === 'struct' || spec.type === 'value') {
      result[key] = prune(field, nested);
    } else {
      if (!kept && isDefault(field, spec.type === 'enum' ? spec.typeName : undefined)) continue;
      result[key] = field;
    }
  }
  return result;
}

/** The canonical text an agent card's signatures are computed over. */
export function canonicalCardPayload(card: AgentCard | Record<string, unknown>): string {
  const { signatures: _signatures, ...unsigned } = card as Record<string, unknown>;
  return canonicalJson(prune(unsigned, descriptorOf('AgentCard')));
}
