/**
 * What the run needs to know of the card, read leniently: the interfaces to check, the
 * capabilities that decide which checks apply, the security requirements, the skills' examples.
 * A card that fails validation is still read this way — its defects are the card checks'
 * business, and its interfaces are checked all the same.
 */

import type { AgentCard } from '../protocol/generated/types.js';
import { parseProtocolVersion } from '../protocol/version.js';
import { cardFromV03 } from '../bindings/v0_3/translate/v03-card.js';
import { UntranslatableError } from '../bindings/v0_3/translate/untranslatable.js';
import type { CheckBindingName, CheckProtocolVersion } from './check-types.js';
import { isLegacyCard, type DiscoveredCard } from './card-discovery.js';

/** An interface as the card declares it. */
export interface DeclaredInterface {
  /** `protocolBinding` as written. */
  readonly protocolBinding: string;
  /** `protocolVersion` as written. */
  readonly protocolVersion: string;
  /** The URL as written. */
  readonly declaredUrl: string;
  readonly tenant: string | undefined;
  /** The standard binding it names, if any. */
  readonly binding: CheckBindingName | undefined;
  /** The version it speaks, when the checker speaks it. */
  readonly version: CheckProtocolVersion | undefined;
  /** The URL to call: absolute for HTTP bindings (resolved against the card URL), as is for gRPC. */
  readonly url: string | undefined;
}

/** The card, as the run reads it. */
export interface CardView {
  readonly name: string | undefined;
  readonly description: string | undefined;
  readonly agentVersion: string | undefined;
  readonly streaming: boolean;
  readonly pushNotifications: boolean;
  readonly extendedAgentCard: boolean;
  /** Whether every call must carry credentials: requirements exist and none is empty. */
  readonly requiresAuthentication: boolean;
  /** Whether the card declares any security scheme. */
  readonly declaresSecurity: boolean;
  /** The skills' examples, in order. */
  readonly examples: readonly string[];
  readonly interfaces: readonly DeclaredInterface[];
  /** The card as `applyAuth` reads it (schemes and requirements). */
  readonly forAuth: AgentCard;
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function bindingOf(name: string): CheckBindingName | undefined {
  switch (name.toUpperCase()) {
    case 'JSONRPC':
      return 'JSONRPC';
    case 'HTTP+JSON':
      return 'HTTP+JSON';
    case 'GRPC':
      return 'GRPC';
    default:
      return undefined;
  }
}

function versionOf(text: string): CheckProtocolVersion | undefined {
  const version = parseProtocolVersion(text)?.text;
  return version === '1.0' || version === '0.3' ? version : undefined;
}

function absolute(
  binding: CheckBindingName | undefined,
  url: string,
  cardUrl: string,
): string | undefined {
  if (binding === 'GRPC') return url === '' ? undefined : url;
  try {
    const resolved = new URL(url, cardUrl);
    return resolved.protocol === 'http:' || resolved.protocol === 'https:'
      ? resolved.toString()
      : undefined;
  } catch {
    return undefined;
  }
}

/** The card in the 1.0 shape, as far as it can be read. */
function lenientCard(discovered: DiscoveredCard): Json {
  if (discovered.card !== undefined) return discovered.card as unknown as Json;
  const json = discovered.json;
  if (!isRecord(json)) return {};
  if (isLegacyCard(json)) {
    try {
      return cardFromV03(json);
    } catch (error) {
      if (!(error instanceof UntranslatableError)) throw error;
    }
    const interfaces = [
      {
        url: json.url,
        protocolBinding: json.preferredTransport ?? 'JSONRPC',
        protocolVersion: json.protocolVersion,
      },
      ...(Array.isArray(json.additionalInterfaces) ? json.additionalInterfaces : []).map(
        (i: unknown) =>
          isRecord(i)
            ? { url: i.url, protocolBinding: i.transport, protocolVersion: json.protocolVersion }
            : {},
      ),
    ];
    return { ...json, supportedInterfaces: interfaces };
  }
  return json;
}

/** Reads the card for the run. */
export function viewCard(discovered: DiscoveredCard): CardView {
  const card = lenientCard(discovered);
  const cardUrl = discovered.found?.url ?? discovered.wellKnownUrl;
  const capabilities = isRecord(card.capabilities) ? card.capabilities : {};
  const requirements = Array.isArray(card.securityRequirements) ? card.securityRequirements : [];
  const schemes = isRecord(card.securitySchemes) ? card.securitySchemes : {};
  const examples = (Array.isArray(card.skills) ? card.skills : []).flatMap((skill: unknown) =>
    isRecord(skill) && Array.isArray(skill.examples)
      ? skill.examples.filter((e): e is string => typeof e === 'string')
      : [],
  );
  const seen = new Set<string>();
  const interfaces: DeclaredInterface[] = [];
  for (const entry of Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces : []) {
    if (!isRecord(entry)) continue;
    const protocolBinding = str(entry.protocolBinding) ?? '';
    const protocolVersion = str(entry.protocolVersion) ?? '';
    const declaredUrl = str(entry.url) ?? '';
    const tenant = str(entry.tenant) === '' ? undefined : str(entry.tenant);
    const binding = bindingOf(protocolBinding);
    const key = `${protocolBinding.toUpperCase()} ${versionOf(protocolVersion) ?? protocolVersion} ${declaredUrl} ${tenant ?? ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    interfaces.push({
      protocolBinding,
      protocolVersion,
      declaredUrl,
      tenant,
      binding,
      version: versionOf(protocolVersion),
      url: absolute(binding, declaredUrl, cardUrl),
    });
  }
  const requirementSchemes = requirements.map((r: unknown) =>
    isRecord(r) && isRecord(r.schemes) ? Object.keys(r.schemes) : [],
  );
  return {
    name: str(card.name),
    description: str(card.description),
    agentVersion: str(card.version),
    streaming: capabilities.streaming === true,
    pushNotifications: capabilities.pushNotifications === true,
    extendedAgentCard: capabilities.extendedAgentCard === true,
    requiresAuthentication:
      requirementSchemes.length > 0 && requirementSchemes.every((names) => names.length > 0),
    declaresSecurity: Object.keys(schemes).length > 0,
    examples,
    interfaces,
    forAuth: {
      ...(card as unknown as AgentCard),
      name: str(card.name) ?? 'the agent',
      securitySchemes: schemes as NonNullable<AgentCard['securitySchemes']>,
      securityRequirements: requirements as NonNullable<AgentCard['securityRequirements']>,
    },
  };
}
