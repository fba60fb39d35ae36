/**
 * Which checks run where: the catalogue filtered by `only`, `skip` and `level`, each interface
 * check applied to the interfaces it concerns (its bindings, the versions it has a requirement
 * for). A filter names ids, id prefixes (`task`, `task.`), areas or spec sections (`3.1.5`,
 * `§3.1`, `0.3 §7`); one that matches no check is refused, so that a typo in CI is not a green
 * run that checked nothing.
 */

import { ConfigurationError } from '../protocol/local-errors.js';
import { CHECKS } from './catalogue.js';
import type {
  CheckDefinition,
  CheckLevel,
  CheckOptions,
  CheckProtocolVersion,
} from './check-types.js';
import type { ProbeTarget } from './probe/probe.js';

const STRICTNESS: Record<CheckLevel, number> = { must: 0, should: 1, may: 2 };

/** The level a check has on an interface of `version`. */
export function levelOf(definition: CheckDefinition, version: CheckProtocolVersion): CheckLevel {
  return version === '0.3' ? (definition.v03?.level ?? definition.level) : definition.level;
}

/** The section a check cites on an interface of `version`: `§3.1.5`, `0.3 §7.4`. */
export function sectionOf(definition: CheckDefinition, version: CheckProtocolVersion): string {
  return version === '0.3' && definition.v03 !== undefined
    ? `0.3 §${definition.v03.section}`
    : `§${definition.section}`;
}

function sectionMatches(token: string, section: string): boolean {
  return section === token || section.startsWith(`${token}.`);
}

/** Whether a filter token names a check. */
function matches(token: string, definition: CheckDefinition): boolean {
  const t = token.trim();
  if (t === definition.id || t === definition.area) return true;
  if (definition.id.startsWith(t.endsWith('.') ? t : `${t}.`)) return true;
  const v03 = /^0\.3\s*§?\s*([\d.]+)$/.exec(t);
  if (v03 !== null) {
    return definition.v03 !== undefined && sectionMatches(v03[1] as string, definition.v03.section);
  }
  const section = /^§?\s*(\d[\d.]*)$/.exec(t);
  return section !== null && sectionMatches(section[1] as string, definition.section);
}

/**
 * The checks the options select, in catalogue order.
 *
 * @throws ConfigurationError for a filter that matches no check.
 */
export function selectChecks(options: CheckOptions): CheckDefinition[] {
  for (const token of [...(options.only ?? []), ...(options.skip ?? [])]) {
    if (!CHECKS.some((definition) => matches(token, definition))) {
      throw new ConfigurationError(
        `${JSON.stringify(token)} names no check: give a check id (task.get-unknown), an id prefix (task), an area (streaming) or a section (3.1.5); docs/check.md lists them`,
      );
    }
  }
  const only = options.only ?? [];
  const skip = options.skip ?? [];
  const ceiling = STRICTNESS[options.level ?? 'may'];
  return CHECKS.filter(
    (definition) =>
      (only.length === 0 || only.some((token) => matches(token, definition))) &&
      !skip.some((token) => matches(token, definition)) &&
      // A check runs if it is strict enough on some version; `level` filters per result later.
      Math.min(
        STRICTNESS[definition.level],
        STRICTNESS[definition.v03?.level ?? definition.level],
      ) <= ceiling,
  );
}

/** Whether a check of level `level` is kept by the options' `level`. */
export function keptByLevel(options: CheckOptions, level: CheckLevel): boolean {
  return STRICTNESS[level] <= STRICTNESS[options.level ?? 'may'];
}

/** Whether an interface check applies to an interface. */
export function appliesTo(definition: CheckDefinition, target: ProbeTarget): boolean {
  if (definition.bindings !== undefined && !definition.bindings.includes(target.binding))
    return false;
  return target.version === '0.3' ? definition.v03 !== undefined : definition.v10 !== false;
}
