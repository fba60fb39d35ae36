/**
 * Agent cards between 0.3 and 1.0.
 *
 * Served ({@link cardWithV03Fields}): the 1.0 card stays as it is and gains the 0.3 top-level
 * fields beside it — `protocolVersion: "0.3.0"`, `url` and `preferredTransport` (the first 0.3
 * interface), `additionalInterfaces` (every 0.3 interface), `supportsAuthenticatedExtendedCard`
 * (from `capabilities.extendedAgentCard`), `security` (from `securityRequirements`, on skills too)
 * — and each security scheme carries its 0.3 shape beside its 1.0 member. Clients of either version
 * read their own fields and ignore the others.
 *
 * Read ({@link cardFromV03}): a card without `supportedInterfaces` but with a 0.3
 * `protocolVersion` becomes a 1.0 card whose interfaces are `url` / `preferredTransport` and the
 * `additionalInterfaces`, each at protocol version 0.3. `capabilities.stateTransitionHistory`
 * has no 1.0 field and is left out (it promised nothing a 1.0 client could use).
 */

import type { AgentCard, AgentInterface, AgentSkill } from '../../../protocol/generated/types.js';
import { parseProtocolVersion } from '../../../protocol/version.js';
import { isObject, translate, type Issues } from './untranslatable.js';
import { defined, readString, typeName } from './v03-fields.js';
import { schemeFromV03, schemeToV03, securityFromV03, securityToV03 } from './v03-security.js';
import { V03_CARD_VERSION, V03_VERSION, type V03CardFields } from './v03-types.js';

/** Whether an interface speaks 0.3 (`0.3`, `0.3.0`...). */
export function isV03Interface(agentInterface: AgentInterface): boolean {
  return parseProtocolVersion(agentInterface.protocolVersion)?.text === V03_VERSION;
}

/**
 * The card as served to clients of both versions: the 1.0 card plus the 0.3 fields. Returns the
 * card unchanged when it lists no 0.3 interface (a 0.3 client could not call it anyway).
 */
export function cardWithV03Fields(card: AgentCard): AgentCard & Partial<V03CardFields> {
  const legacy = card.supportedInterfaces.filter(isV03Interface);
  const primary = legacy[0];
  if (primary === undefined) return card;
  const fields: V03CardFields = defined({
    protocolVersion: V03_CARD_VERSION,
    url: primary.url,
    preferredTransport: primary.protocolBinding,
    additionalInterfaces: legacy.map((i) => ({ url: i.url, transport: i.protocolBinding })),
    supportsAuthenticatedExtendedCard: card.capabilities.extendedAgentCard ?? false,
    security:
      card.securityRequirements === undefined
        ? undefined
        : securityToV03(card.securityRequirements),
  });
  const { name, description, ...rest } = card;
  const out: AgentCard & Partial<V03CardFields> = { name, description, ...fields, ...rest };
  const schemes = card.securitySchemes;
  if (schemes !== undefined) {
    out.securitySchemes = Object.fromEntries(
      Object.entries(schemes).map(([key, scheme]) => [key, { ...scheme, ...schemeToV03(scheme) }]),
    );
  }
  out.skills = card.skills.map((skill) =>
    skill.securityRequirements === undefined
      ? skill
      : ({ ...skill, security: securityToV03(skill.securityRequirements) } as AgentSkill),
  );
  return out;
}

/** Whether a card (JSON) is a 0.3 card rather than a 1.0 one. */
export function isV03Card(value: unknown): value is Record<string, unknown> {
  if (!isObject(value) || value.supportedInterfaces !== undefined) return false;
  const version = typeof value.protocolVersion === 'string' ? value.protocolVersion : '';
  return parseProtocolVersion(version)?.major === 0 && typeof value.url === 'string';
}

function interfacesOf(card: Record<string, unknown>, issues: Issues): AgentInterface[] {
  const version = parseProtocolVersion(String(card.protocolVersion))?.text ?? V03_VERSION;
  const url = readString(card, 'url', '', issues, true) ?? '';
  const preferred = readString(card, 'preferredTransport', '', issues) ?? 'JSONRPC';
  const list: AgentInterface[] = [{ url, protocolBinding: preferred, protocolVersion: version }];
  const additional = card.additionalInterfaces;
  if (additional === undefined || additional === null) return list;
  if (!Array.isArray(additional)) {
    issues.add('additionalInterfaces', 'must be an array of { url, transport }');
    return list;
  }
  additional.forEach((entry: unknown, index) => {
    const path = `additionalInterfaces[${index}]`;
    if (!isObject(entry)) {
      issues.add(path, `must be an object, got ${typeName(entry)}`);
      return;
    }
    const entryUrl = readString(entry, 'url', path, issues, true);
    const transport = readString(entry, 'transport', path, issues, true);
    if (entryUrl === undefined || transport === undefined) return;
    const known = list.some(
      (i) => i.url === entryUrl && i.protocolBinding.toUpperCase() === transport.toUpperCase(),
    );
    if (!known) list.push({ url: entryUrl, protocolBinding: transport, protocolVersion: version });
  });
  return list;
}

/**
 * A 0.3 card (JSON) in the 1.0 shape, to be validated as a 1.0 `AgentCard` by the caller.
 *
 * @throws UntranslatableError listing what cannot be read.
 */
export function cardFromV03(card: Record<string, unknown>): Record<string, unknown> {
  return translate('The A2A 0.3 agent card', (issues) => {
    const {
      protocolVersion: _version,
      url: _url,
      preferredTransport: _preferred,
      additionalInterfaces: _additional,
      supportsAuthenticatedExtendedCard: extended,
      security,
      securitySchemes,
      capabilities,
      skills,
      ...rest
    } = card;
    const caps = isObject(capabilities) ? { ...capabilities } : {};
    delete caps.stateTransitionHistory;
    if (typeof extended === 'boolean' && caps.extendedAgentCard === undefined) {
      caps.extendedAgentCard = extended;
    }
    const schemes = isObject(securitySchemes)
      ? Object.fromEntries(
          Object.entries(securitySchemes).flatMap(([key, scheme]) => {
            const read = schemeFromV03(scheme, `securitySchemes.${key}`, issues);
            return read === undefined ? [] : [[key, read]];
          }),
        )
      : securitySchemes;
    const skillList = Array.isArray(skills)
      ? skills.map((skill: unknown, index) => {
          if (!isObject(skill)) return skill;
          const { security: skillSecurity, ...skillRest } = skill;
          const requirements = securityFromV03(skillSecurity, `skills[${index}].security`, issues);
          return defined({ ...skillRest, securityRequirements: requirements });
        })
      : skills;
    return defined({
      name: rest.name,
      description: rest.description,
      supportedInterfaces: interfacesOf(card, issues),
      ...rest,
      capabilities: caps,
      securitySchemes: schemes,
      securityRequirements: securityFromV03(security, 'security', issues),
      skills: skillList,
    });
  });
}
