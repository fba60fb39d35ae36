/**
 * Required fields that proto3 cannot send at their default. A field without explicit presence is
 * not on the wire when it holds its default (`0`, `false`, `""`, an empty list), and the ProtoJSON
 * of the decoded message leaves it out; yet some `REQUIRED` fields are valid at their default —
 * `ListTasksResponse.totalSize` of an empty listing is `0`, its `tasks` `[]`, its `nextPageToken`
 * `""` on the last page. JSON-RPC and HTTP+JSON send them; this puts them back after decoding, so
 * that a gRPC answer is the value the other bindings answer and passes the same validators.
 *
 * Timestamps get the same form too: protobuf writes whole seconds without a fraction
 * (`10:30:00Z`), Tandem (like `Date.toISOString`) with milliseconds (`10:30:00.000Z`).
 *
 * Only `REQUIRED` numbers, booleans and maps, and the `REQUIRED` strings and lists that a field
 * rule allows to be empty, are restored: any other required field at its default is invalid, and is
 * left absent for the validator to name. The plan of each message is computed once.
 */

import type { MessageDescriptor } from '../../protocol/descriptor.js';
import { fieldRules } from '../../protocol/field-rules.js';
import { messageDescriptors } from '../../protocol/generated/descriptors.js';

interface Plan {
  /** Fields to set when absent, with their default. */
  readonly defaults: readonly (readonly [string, unknown])[];
  /** `google.protobuf.Timestamp` fields, written back with milliseconds. */
  readonly timestamps: readonly string[];
  /** Message fields whose values have defaults of their own to restore. */
  readonly nested: readonly {
    readonly name: string;
    readonly plan: Plan;
    readonly kind: 'single' | 'repeated' | 'map';
  }[];
}

const descriptors = messageDescriptors as unknown as Readonly<Record<string, MessageDescriptor>>;
const plans = new Map<string, Plan | null>();

function defaultOf(message: string, field: MessageDescriptor['fields'][number]): unknown {
  if (field.required !== true || field.presence === true || field.oneof !== undefined) {
    return undefined;
  }
  const allowEmpty = fieldRules[message]?.[field.name]?.allowEmpty === true;
  if (field.repeated === true) return allowEmpty ? [] : undefined;
  // A required map is valid empty (OAuth flows' `scopes`).
  if (field.map === true) return {};
  switch (field.type) {
    case 'int32':
      return 0;
    case 'bool':
      return false;
    case 'string':
      return allowEmpty ? '' : undefined;
    default:
      return undefined;
  }
}

/** The plan of a message, or `null` when nothing in it (at any depth) needs restoring. */
function planOf(message: string): Plan | null {
  const known = plans.get(message);
  if (known !== undefined) return known;
  plans.set(message, null); // recursive messages (Task in Message...) end here
  const descriptor = descriptors[message];
  if (descriptor === undefined) return null;
  const defaults: (readonly [string, unknown])[] = [];
  const timestamps: string[] = [];
  const nested: Plan['nested'][number][] = [];
  for (const field of descriptor.fields) {
    const value = defaultOf(message, field);
    if (value !== undefined) defaults.push([field.name, value]);
    if (field.type === 'timestamp' && field.repeated !== true) timestamps.push(field.name);
    if (field.type !== 'message' || field.typeName === undefined) continue;
    const plan = planOf(field.typeName);
    if (plan === null) continue;
    const kind = field.map === true ? 'map' : field.repeated === true ? 'repeated' : 'single';
    nested.push({ name: field.name, plan, kind });
  }
  const plan =
    defaults.length === 0 && timestamps.length === 0 && nested.length === 0
      ? null
      : { defaults, timestamps, nested };
  plans.set(message, plan);
  return plan;
}

/** Second-precision RFC 3339 (how protobuf writes whole seconds) with milliseconds. */
const WHOLE_OR_MILLIS = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,3}))?Z$/;

function withMillis(timestamp: unknown): unknown {
  if (typeof timestamp !== 'string') return timestamp;
  const match = WHOLE_OR_MILLIS.exec(timestamp);
  if (match === null) return timestamp;
  return `${match[1]}.${(match[2] ?? '').padEnd(3, '0')}Z`;
}

function apply(plan: Plan, value: Record<string, unknown>): void {
  for (const name of plan.timestamps) {
    if (name in value) value[name] = withMillis(value[name]);
  }
  for (const [name, fallback] of plan.defaults) {
    if (!(name in value)) {
      value[name] = Array.isArray(fallback)
        ? []
        : typeof fallback === 'object' && fallback !== null
          ? {}
          : fallback;
    }
  }
  for (const { name, plan: inner, kind } of plan.nested) {
    const field = value[name];
    if (typeof field !== 'object' || field === null) continue;
    if (kind === 'single') apply(inner, field as Record<string, unknown>);
    else {
      for (const item of kind === 'repeated' ? (field as unknown[]) : Object.values(field)) {
        if (typeof item === 'object' && item !== null)
          apply(inner, item as Record<string, unknown>);
      }
    }
  }
}

/**
 * A restorer for the message named `message` (`Task`, `ListTasksResponse`), or `undefined` when
 * the message never needs one.
 */
export function implicitDefaultsOf(
  message: string,
): ((value: Record<string, unknown>) => void) | undefined {
  const plan = planOf(message);
  return plan === null ? undefined : (value) => apply(plan, value);
}
