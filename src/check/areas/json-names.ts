/**
 * `wire.json-names` (spec 5.5): JSON answers name fields in lowerCamelCase and enum values by
 * their names. Tandem's validators accept proto names (`context_id`) on input, as ProtoJSON
 * parsers do, so this check walks what the agent sent along the proto descriptors instead and
 * lists every field it wrote under its proto name and every enum written as a number.
 */

import type { FieldDescriptor, MessageDescriptor } from '../../protocol/descriptor.js';
import { messageDescriptors } from '../../protocol/generated/descriptors.js';
import { operations, type OperationName } from '../../protocol/operations.js';
import type { InterfaceCheck } from '../check-implementation.js';
import { isUnavailable, pass, fail, skip } from '../verdict.js';
import type { Exchange } from '../wire/wire-exchange.js';

function descriptorOf(name: string | undefined): MessageDescriptor | undefined {
  return name === undefined
    ? undefined
    : (messageDescriptors as Record<string, MessageDescriptor | undefined>)[name];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The places in `value` (a message of `type`) that break the naming rules. */
export function namingProblems(type: string, value: unknown, path = ''): string[] {
  const descriptor = descriptorOf(type);
  if (descriptor === undefined || !isRecord(value)) return [];
  const problems: string[] = [];
  for (const [key, member] of Object.entries(value)) {
    const field: FieldDescriptor | undefined = descriptor.fields.find(
      (f) => f.name === key || f.protoName === key,
    );
    if (field === undefined) continue;
    const at = path === '' ? key : `${path}.${key}`;
    if (key !== field.name) problems.push(`${at} (write ${field.name})`);
    if (field.type === 'enum') {
      const values = Array.isArray(member) ? member : [member];
      if (values.some((v) => typeof v === 'number'))
        problems.push(`${at} is a number, not the enum value's name`);
    }
    if (field.type !== 'message') continue;
    if (field.repeated === true && Array.isArray(member)) {
      member.forEach((item, index) =>
        problems.push(...namingProblems(field.typeName ?? '', item, `${at}[${index}]`)),
      );
    } else if (field.map === true && isRecord(member)) {
      for (const [name, item] of Object.entries(member))
        problems.push(...namingProblems(field.typeName ?? '', item, `${at}.${name}`));
    } else {
      problems.push(...namingProblems(field.typeName ?? '', member, at));
    }
  }
  return problems;
}

export const JSON_NAMES: InterfaceCheck = {
  id: 'wire.json-names',
  async run(context) {
    const checked: { problems: string[]; exchange: Exchange }[] = [];
    for (const { operation, outcome } of context.observations) {
      if (outcome.kind !== 'result' || !(operation in operations)) continue;
      const type = operations[operation as OperationName].responseType;
      checked.push({ problems: namingProblems(type, outcome.raw), exchange: outcome.exchange });
    }
    const streamed = context.view.streaming ? await context.fixtures.streamed() : undefined;
    if (streamed !== undefined && !isUnavailable(streamed)) {
      for (const event of streamed.events) {
        checked.push({
          problems: namingProblems('StreamResponse', event.raw),
          exchange: streamed.exchange,
        });
      }
    }
    if (checked.length === 0) return skip('no JSON result was seen');
    const bad = checked.find((c) => c.problems.length > 0);
    return bad === undefined
      ? pass(`${checked.length} JSON answer(s) and events use JSON names`, checked[0]?.exchange)
      : fail(
          `fields under their proto names: ${bad.problems.slice(0, 5).join(', ')}`,
          bad.exchange,
        );
  },
};
