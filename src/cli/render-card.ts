/**
 * Human output of an agent card (`tandem card`): who the agent is, what it can do, where and how
 * to reach it, and which credentials it wants. Validation problems are listed by field path, the
 * way the client reports them.
 */

import type {
  AgentCard,
  AgentInterface,
  AgentSkill,
  FieldViolation,
  SecurityRequirement,
  SecurityScheme,
} from '../index.js';
import type { Terminal } from './terminal.js';

function yesNo(value: boolean | undefined): string {
  return value === true ? 'yes' : 'no';
}

/** One line describing a security scheme. */
export function describeScheme(scheme: SecurityScheme): string {
  if (scheme.apiKeySecurityScheme !== undefined) {
    const { location, name } = scheme.apiKeySecurityScheme;
    return `API key in ${location} "${name}"`;
  }
  if (scheme.httpAuthSecurityScheme !== undefined) {
    const { scheme: kind, bearerFormat } = scheme.httpAuthSecurityScheme;
    return `HTTP ${kind}${bearerFormat === undefined ? '' : ` (${bearerFormat})`}`;
  }
  if (scheme.oauth2SecurityScheme !== undefined) {
    const flows = Object.keys(scheme.oauth2SecurityScheme.flows).join(', ');
    return `OAuth 2.0 (${flows})`;
  }
  if (scheme.openIdConnectSecurityScheme !== undefined) {
    return `OpenID Connect ${scheme.openIdConnectSecurityScheme.openIdConnectUrl}`;
  }
  return 'mutual TLS';
}

function describeRequirement(requirement: SecurityRequirement): string {
  return Object.entries(requirement.schemes ?? {})
    .map(([name, scopes]) => {
      const list = scopes.list ?? [];
      return list.length === 0 ? name : `${name} [${list.join(', ')}]`;
    })
    .join(' + ');
}

function writeOverview(terminal: Terminal, card: AgentCard): void {
  const { style } = terminal;
  const field = (name: string, value: string): void =>
    terminal.line(`${style.dim(name.padEnd(14))}${value}`);
  terminal.line(`${style.bold(card.name)} ${style.dim(`v${card.version}`)}`);
  terminal.line(card.description);
  terminal.line();
  if (card.provider !== undefined) {
    field('provider', `${card.provider.organization} (${card.provider.url})`);
  }
  if (card.documentationUrl !== undefined) field('documentation', card.documentationUrl);
  if (card.iconUrl !== undefined) field('icon', card.iconUrl);
  const { streaming, pushNotifications, extendedAgentCard, extensions } = card.capabilities;
  field(
    'capabilities',
    `streaming: ${yesNo(streaming)}, push notifications: ${yesNo(pushNotifications)}, ` +
      `extended card: ${yesNo(extendedAgentCard)}`,
  );
  for (const extension of extensions ?? []) {
    const required = extension.required === true ? style.yellow(' (required)') : '';
    field('extension', `${extension.uri ?? '?'}${required}`);
  }
  field('input modes', card.defaultInputModes.join(', '));
  field('output modes', card.defaultOutputModes.join(', '));
  if (card.signatures !== undefined && card.signatures.length > 0) {
    field('signatures', String(card.signatures.length));
  }
}

function writeInterfaces(
  terminal: Terminal,
  interfaces: readonly AgentInterface[],
  selected: AgentInterface | undefined,
): void {
  const { style } = terminal;
  terminal.line(style.bold(`Interfaces (${interfaces.length})`));
  // The client resolves relative URLs, so find the entry by what it selects on: the first one of
  // the chosen binding at the chosen version.
  const chosen =
    selected === undefined
      ? undefined
      : interfaces.find(
          (entry) =>
            entry.protocolBinding === selected.protocolBinding &&
            entry.protocolVersion === selected.protocolVersion,
        );
  for (const entry of interfaces) {
    const binding = style.cyan(entry.protocolBinding.padEnd(10));
    const tenant = entry.tenant === undefined ? '' : style.dim(`  tenant ${entry.tenant}`);
    const mark = entry === chosen ? style.green('  (selected)') : '';
    terminal.line(`  ${binding} ${entry.protocolVersion.padEnd(5)} ${entry.url}${tenant}${mark}`);
  }
}

function writeSkills(terminal: Terminal, skills: readonly AgentSkill[]): void {
  const { style } = terminal;
  const detail = (name: string, values: readonly string[] | undefined): void => {
    if (values !== undefined && values.length > 0) {
      terminal.line(`    ${style.dim(`${name}:`)} ${values.join(', ')}`);
    }
  };
  terminal.line(style.bold(`Skills (${skills.length})`));
  for (const skill of skills) {
    terminal.line(`  ${style.cyan(skill.id)}  ${style.bold(skill.name)}`);
    terminal.line(`    ${skill.description}`);
    detail('tags', skill.tags);
    detail(
      'examples',
      skill.examples?.map((example) => `"${example}"`),
    );
    detail('input', skill.inputModes);
    detail('output', skill.outputModes);
  }
}

function writeSecurity(terminal: Terminal, card: AgentCard): void {
  const { style } = terminal;
  const schemes = Object.entries(card.securitySchemes ?? {});
  const requirements = card.securityRequirements ?? [];
  if (schemes.length === 0 && requirements.length === 0) return;
  terminal.line();
  terminal.line(style.bold('Security'));
  for (const [name, scheme] of schemes) {
    terminal.line(`  ${style.cyan(name)}  ${describeScheme(scheme)}`);
  }
  if (requirements.length > 0) {
    const alternatives = requirements.map(describeRequirement).join(' or ');
    terminal.line(`  ${style.dim('requires:')} ${alternatives}`);
  }
}

/** Writes the card; `selected` is the interface the client chose, marked in the list. */
export function writeCard(
  terminal: Terminal,
  card: AgentCard,
  selected: AgentInterface | undefined,
): void {
  writeOverview(terminal, card);
  terminal.line();
  writeInterfaces(terminal, card.supportedInterfaces, selected);
  terminal.line();
  writeSkills(terminal, card.skills);
  writeSecurity(terminal, card);
}

/** Writes the card as received (it is not a valid card) and its validation problems. */
export function writeInvalidCard(
  terminal: Terminal,
  raw: unknown,
  violations: readonly FieldViolation[],
): void {
  const { style } = terminal;
  if (raw !== undefined) {
    terminal.line(style.dim('The card as received:'));
    terminal.line(JSON.stringify(raw, null, 2));
    terminal.line();
  }
  terminal.line(style.bold(style.red(`Problems (${violations.length})`)));
  for (const violation of violations) {
    terminal.line(`  ${style.yellow(violation.field)}: ${violation.description}`);
  }
}
