/**
 * Results between the kind-tagged JSON of A2A 0.3 and the ProtoJSON of the 0.3 proto (see
 * `v03-protojson.ts`): what `/v1/...` answers, per operation, and the agent card of `GET /v1/card`
 * (the proto's `AgentCard`: security schemes as `{ apiKeySecurityScheme: {...} }`, requirements as
 * `{ schemes: { name: { list } } }`, where the kind-tagged card has `{ type: "apiKey", in }` and
 * `{ name: [] }`).
 */

import type { OperationName } from '../../../protocol/operations.js';
import { isObject } from './untranslatable.js';
import {
  streamEventFromProto,
  streamEventToProto,
  taskFromProto,
  taskPushConfigFromProto,
  taskPushConfigToProto,
  taskToProto,
} from './v03-protojson.js';

type Json = Record<string, unknown>;

function present(value: Json): Json {
  const out: Json = {};
  for (const [key, member] of Object.entries(value)) {
    if (member !== undefined && member !== '') out[key] = member;
  }
  return out;
}

/** The kind-tagged `type` of each proto scheme member, and back. */
const SCHEME_MEMBERS: readonly (readonly [string, string])[] = [
  ['apiKey', 'apiKeySecurityScheme'],
  ['http', 'httpAuthSecurityScheme'],
  ['oauth2', 'oauth2SecurityScheme'],
  ['openIdConnect', 'openIdConnectSecurityScheme'],
  ['mutualTLS', 'mtlsSecurityScheme'],
];

function schemeToProto(scheme: unknown): unknown {
  if (!isObject(scheme)) return scheme;
  const member = SCHEME_MEMBERS.find(([type]) => type === scheme.type)?.[1];
  if (member === undefined) return scheme;
  const { type: _type, in: location, ...rest } = scheme;
  // The served card carries the 1.0 member beside the 0.3 fields; only the 0.3 fields are written.
  for (const [, name] of SCHEME_MEMBERS) delete rest[name];
  return { [member]: present({ ...rest, location }) };
}

function schemeFromProto(scheme: unknown): unknown {
  if (!isObject(scheme) || scheme.type !== undefined) return scheme;
  for (const [type, member] of SCHEME_MEMBERS) {
    const body = scheme[member];
    if (!isObject(body)) continue;
    const { location, ...rest } = body;
    return present({ type, ...rest, in: location });
  }
  return scheme;
}

function securityToProto(security: unknown): unknown {
  if (!Array.isArray(security)) return security;
  return security.map((requirement: unknown) =>
    isObject(requirement)
      ? {
          schemes: Object.fromEntries(
            Object.entries(requirement).map(([name, scopes]) => [name, { list: scopes }]),
          ),
        }
      : requirement,
  );
}

function securityFromProto(security: unknown): unknown {
  if (!Array.isArray(security)) return security;
  return security.map((requirement: unknown) =>
    isObject(requirement) && isObject(requirement.schemes)
      ? Object.fromEntries(
          Object.entries(requirement.schemes).map(([name, scopes]) => [
            name,
            isObject(scopes) ? (scopes.list ?? []) : scopes,
          ]),
        )
      : requirement,
  );
}

function mapValues(value: unknown, each: (item: unknown) => unknown): unknown {
  return isObject(value)
    ? Object.fromEntries(Object.entries(value).map(([key, item]) => [key, each(item)]))
    : value;
}

function skillsWith(skills: unknown, security: (value: unknown) => unknown): unknown {
  return Array.isArray(skills)
    ? skills.map((skill: unknown) =>
        isObject(skill) && skill.security !== undefined
          ? { ...skill, security: security(skill.security) }
          : skill,
      )
    : skills;
}

/** The proto's `AgentSkill` members of a served skill (its 1.0 `securityRequirements` dropped). */
function skillToProto(skill: unknown): unknown {
  if (!isObject(skill)) return skill;
  return present({
    id: skill.id,
    name: skill.name,
    description: skill.description,
    tags: skill.tags,
    examples: skill.examples,
    inputModes: skill.inputModes,
    outputModes: skill.outputModes,
    security: securityToProto(skill.security),
  });
}

/** The served card (its 0.3 fields) as the ProtoJSON of the 0.3 proto's `AgentCard`. */
export function cardToProto(card: unknown): unknown {
  if (!isObject(card)) return card;
  const capabilities = isObject(card.capabilities) ? card.capabilities : {};
  return present({
    protocolVersion: card.protocolVersion,
    name: card.name,
    description: card.description,
    url: card.url,
    preferredTransport: card.preferredTransport,
    additionalInterfaces: card.additionalInterfaces,
    provider: card.provider,
    version: card.version,
    documentationUrl: card.documentationUrl,
    capabilities: present({
      streaming: capabilities.streaming,
      pushNotifications: capabilities.pushNotifications,
      extensions: capabilities.extensions,
    }),
    securitySchemes: mapValues(card.securitySchemes, schemeToProto),
    security: securityToProto(card.security),
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: Array.isArray(card.skills) ? card.skills.map(skillToProto) : card.skills,
    supportsAuthenticatedExtendedCard: card.supportsAuthenticatedExtendedCard,
    signatures: card.signatures,
  });
}

/** A ProtoJSON 0.3 `AgentCard` as the kind-tagged 0.3 card (`cardFromV03` reads it on). */
export function cardFromProto(card: unknown): unknown {
  if (!isObject(card)) return card;
  return present({
    ...card,
    securitySchemes: mapValues(card.securitySchemes, schemeFromProto),
    security: securityFromProto(card.security),
    skills: skillsWith(card.skills, securityFromProto),
  });
}

/**
 * The kind-tagged 0.3 result of an operation as the ProtoJSON body `/v1/...` answers;
 * `undefined` for none (`DELETE` answers 204).
 */
export function resultToProto(operation: OperationName, result: unknown): unknown {
  switch (operation) {
    case 'SendMessage':
      // `SendMessageResponse` is `{ task }` or `{ message }`, as a `StreamResponse` would be.
      return streamEventToProto(result);
    case 'GetTask':
    case 'CancelTask':
      return taskToProto(result);
    case 'CreateTaskPushNotificationConfig':
    case 'GetTaskPushNotificationConfig':
      return taskPushConfigToProto(result);
    case 'ListTaskPushNotificationConfigs':
      return { configs: Array.isArray(result) ? result.map(taskPushConfigToProto) : [] };
    case 'DeleteTaskPushNotificationConfig':
      return undefined;
    case 'GetExtendedAgentCard':
      return cardToProto(result);
    default:
      return result;
  }
}

/** A ProtoJSON body of `/v1/...` as the kind-tagged 0.3 result of its operation. */
export function resultFromProto(operation: OperationName, body: unknown): unknown {
  switch (operation) {
    case 'SendMessage':
      return streamEventFromProto(body);
    case 'GetTask':
    case 'CancelTask':
      return taskFromProto(body);
    case 'CreateTaskPushNotificationConfig':
    case 'GetTaskPushNotificationConfig':
      return taskPushConfigFromProto(body);
    case 'ListTaskPushNotificationConfigs': {
      const configs = Array.isArray(body) ? body : isObject(body) ? (body.configs ?? []) : body;
      return Array.isArray(configs) ? configs.map(taskPushConfigFromProto) : configs;
    }
    case 'DeleteTaskPushNotificationConfig':
      return null;
    case 'GetExtendedAgentCard':
      return cardFromProto(body);
    default:
      return body;
  }
}
