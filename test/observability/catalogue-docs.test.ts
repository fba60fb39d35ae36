/**
 * docs/observability.md lists every metric of the catalogue with its kind, unit and attributes,
 * and nothing the catalogue lacks: the table operators read is the code's.
 */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { INSTRUMENTS } from '../../src/telemetry/instrument-catalogue.js';
import { TELEMETRY_SCOPE_VERSION } from '../../src/telemetry/telemetry-scope.js';

const doc = readFileSync(new URL('../../docs/observability.md', import.meta.url), 'utf8');
const KINDS = {
  histogram: 'histogram',
  counter: 'counter',
  'updown-counter': 'up-down counter',
  gauge: 'gauge',
};

function documentedRows(): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  for (const line of doc.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const name = /^`(a2a\.[a-z0-9_.]+)`$/.exec(cells[1] ?? '')?.[1];
    if (
      name !== undefined &&
      cells.length >= 6 &&
      /^(histogram|counter|up-down counter|gauge)$/.test(cells[2] ?? '')
    ) {
      rows.set(name, cells.slice(2, 5));
    }
  }
  return rows;
}

describe('the metric catalogue in docs/observability.md', () => {
  it('has one row per instrument, with its kind, unit and attributes', () => {
    const rows = documentedRows();
    expect([...rows.keys()].sort()).toEqual(
      Object.values(INSTRUMENTS)
        .map((d) => d.name)
        .sort(),
    );
    for (const definition of Object.values(INSTRUMENTS)) {
      const attributes =
        definition.attributes.length === 0
          ? '—'
          : definition.attributes.map((a) => `\`${a}\``).join(', ');
      expect(rows.get(definition.name), definition.name).toEqual([
        KINDS[definition.kind],
        `\`${definition.unit}\``,
        attributes,
      ]);
    }
  });

  it('labels no metric with an id', () => {
    for (const definition of Object.values(INSTRUMENTS)) {
      for (const attribute of definition.attributes) {
        expect(attribute, definition.name).not.toMatch(/\.id$|conversation/);
      }
    }
  });

  it('the instrumentation scope carries the package version', () => {
    const pkg = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    expect(TELEMETRY_SCOPE_VERSION).toBe(pkg.version);
  });
});
