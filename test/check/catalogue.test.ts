/**
 * The catalogue of checks, held to the code and to the docs: every entry has exactly one
 * implementation of its scope and every implementation an entry; ids are unique and stable in
 * form; and docs/check.md lists every check with its level and sections, as the issue asks.
 */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHECK_AREAS, CHECKS, checkDefinition } from '../../src/check.js';
import { AGENT_CHECKS, INTERFACE_CHECKS } from '../../src/check/check-registry.js';

const docs = readFileSync(new URL('../../docs/check.md', import.meta.url), 'utf8');

describe('the catalogue of checks', () => {
  it('has one implementation for each check, of its scope, and no implementation without a check', () => {
    for (const check of CHECKS) {
      const registry = check.scope === 'agent' ? AGENT_CHECKS : INTERFACE_CHECKS;
      expect(registry.has(check.id), check.id).toBe(true);
    }
    const implemented = [...AGENT_CHECKS.keys(), ...INTERFACE_CHECKS.keys()].sort();
    expect(implemented).toEqual(CHECKS.map((c) => c.id).sort());
  });

  it('gives every check a unique id of the form area.name, a title, a level and a section', () => {
    const ids = CHECKS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const check of CHECKS) {
      expect(check.id).toMatch(/^[a-z0-9]+\.[a-z0-9-]+$/);
      expect(check.title.length).toBeGreaterThan(10);
      expect(['must', 'should', 'may']).toContain(check.level);
      expect(check.section).toMatch(/^\d+(\.\d+)*$/);
      if (check.v03 !== undefined) expect(check.v03.section).toMatch(/^\d+(\.\d+)*$/);
      expect(CHECK_AREAS.map((a) => a.area)).toContain(check.area);
      expect(checkDefinition(check.id)).toBe(check);
    }
  });

  it('keeps each area together, in the order of the areas', () => {
    const order = CHECKS.map((c) => CHECK_AREAS.findIndex((a) => a.area === c.area));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it('is listed whole in docs/check.md, with each level and section', () => {
    for (const check of CHECKS) {
      const row = docs
        .split('\n')
        .find((line) =>
          new RegExp(`^\\|\\s*\`${check.id.replace('.', '\\.')}\`\\s*\\|`).test(line),
        );
      expect(row, check.id).toBeDefined();
      const cells = (row ?? '').split('|').map((cell) => cell.trim());
      expect(cells[2], check.id).toBe(check.level.toUpperCase());
      expect(cells[3], check.id).toBe(check.v10 === false ? '—' : `§${check.section}`);
      const v03 =
        check.v03 === undefined
          ? '—'
          : `§${check.v03.section}${check.v03.level !== undefined && check.v03.level !== check.level ? ` (${check.v03.level.toUpperCase()})` : ''}`;
      expect(cells[4], check.id).toBe(v03);
    }
  });
});
