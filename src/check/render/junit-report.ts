/**
 * A report as JUnit XML, the format CI systems read: one test suite per area, one test case
 * per check and binding (`task.get-unknown [JSONRPC 1.0]`), a failed MUST as `<failure>` with its
 * detail, section and wire excerpt, a skip as `<skipped>`, and a warning as a passed case whose
 * `<system-out>` says what is not met (JUnit has no warning; a SHOULD does not fail a build).
 */

import { CHECK_AREAS } from '../catalogue.js';
import type { CheckReport, CheckResult, WireRequest, WireResponse } from '../check-types.js';

/** XML text: markup escaped, characters XML 1.0 forbids dropped. */
function xml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** The name of a result's test case. */
export function testCaseName(result: CheckResult): string {
  return result.binding === null
    ? result.id
    : `${result.id} [${result.binding} ${result.version ?? ''}]`.replace(' ]', ']');
}

function wireText(request: WireRequest | undefined, response: WireResponse | undefined): string {
  const lines: string[] = [];
  if (request !== undefined) {
    lines.push(`> ${request.method} ${request.url}`);
    for (const [name, value] of Object.entries(request.headers)) lines.push(`> ${name}: ${value}`);
    if (request.body !== undefined) lines.push(`> ${request.body}`);
  }
  if (response !== undefined) {
    lines.push(`< ${response.status}`);
    for (const [name, value] of Object.entries(response.headers)) lines.push(`< ${name}: ${value}`);
    if (response.body !== undefined) lines.push(`< ${response.body}`);
  }
  return lines.join('\n');
}

function testCase(result: CheckResult): string {
  const attributes = `classname="tandem.check.${xml(result.area)}" name="${xml(testCaseName(result))}" time="0"`;
  const requirement = `${result.level.toUpperCase()} ${result.section}`;
  const body =
    `${result.detail}\n${requirement}\n${wireText(result.request, result.response)}`.trim();
  switch (result.status) {
    case 'pass':
      return `    <testcase ${attributes}/>`;
    case 'fail':
      return `    <testcase ${attributes}>\n      <failure message="${xml(result.detail)}" type="${xml(requirement)}">${xml(body)}</failure>\n    </testcase>`;
    case 'skip':
      return `    <testcase ${attributes}>\n      <skipped message="${xml(result.detail)}"/>\n    </testcase>`;
    case 'warn':
      return `    <testcase ${attributes}>\n      <system-out>${xml(`WARNING: ${body}`)}</system-out>\n    </testcase>`;
  }
}

/** The report as a JUnit XML document. */
export function formatJUnitReport(report: CheckReport): string {
  const seconds = (report.durationMs / 1000).toFixed(3);
  const suites = CHECK_AREAS.flatMap(({ area, title }) => {
    const results = report.checks.filter((r) => r.area === area);
    if (results.length === 0) return [];
    const failures = results.filter((r) => r.status === 'fail').length;
    const skipped = results.filter((r) => r.status === 'skip').length;
    return [
      `  <testsuite name="${xml(title)}" tests="${results.length}" failures="${failures}" errors="0" skipped="${skipped}">`,
      ...results.map(testCase),
      '  </testsuite>',
    ];
  });
  const { summary } = report;
  const total = report.checks.length;
  const name = `tandem check ${report.agent.name ?? report.agent.url}`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(name)}" tests="${total}" failures="${summary.failed}" errors="0" skipped="${summary.skipped}" time="${seconds}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
