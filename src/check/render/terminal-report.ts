/**
 * A report as lines for a terminal: grouped by area, one line per check and binding with ✓, ✗,
 * – or !, and under each failure and warning one line of why, the spec section, and the request
 * and response that show it; the summary last. Colours are the caller's (`ReportStyle`), so the
 * same lines serve a colour terminal, a pipe and a test.
 */

import { CHECK_AREAS } from '../catalogue.js';
import type { CheckReport, CheckResult, WireRequest, WireResponse } from '../check-types.js';

/** How the lines are decorated; identity functions print plain text. */
export interface ReportStyle {
  readonly pass: (text: string) => string;
  readonly fail: (text: string) => string;
  readonly warn: (text: string) => string;
  readonly skip: (text: string) => string;
  readonly dim: (text: string) => string;
  readonly bold: (text: string) => string;
}

/** Plain text. */
export const PLAIN_STYLE: ReportStyle = {
  pass: (t) => t,
  fail: (t) => t,
  warn: (t) => t,
  skip: (t) => t,
  dim: (t) => t,
  bold: (t) => t,
};

/** The mark of a status: ✓ pass, ✗ fail, ! warning, – skipped. */
export function markOf(status: CheckResult['status']): string {
  switch (status) {
    case 'pass':
      return '✓';
    case 'fail':
      return '✗';
    case 'warn':
      return '!';
    case 'skip':
      return '–';
  }
}

function oneLine(text: string, length: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > length ? `${flat.slice(0, length)}…` : flat;
}

function requestLine(request: WireRequest): string {
  const body = request.body === undefined ? '' : `  ${oneLine(request.body, 160)}`;
  return `→ ${request.method} ${request.url}${body}`;
}

function responseLine(response: WireResponse): string {
  const type = response.headers['content-type'];
  const body = response.body === undefined ? '' : `  ${oneLine(response.body, 200)}`;
  return `← ${response.status}${type === undefined ? '' : ` ${type}`}${body}`;
}

/** The tag of a result's binding: `[JSONRPC]`, `[HTTP+JSON 0.3]`; empty for card checks. */
function bindingTag(result: CheckResult): string {
  if (result.binding === null) return '';
  return result.version === '0.3' ? `[${result.binding} 0.3]` : `[${result.binding}]`;
}

/** The summary line: `57 checks: 50 passed, 1 failed, 4 skipped, 2 warnings (3.2 s)`. */
export function summaryLine(report: CheckReport): string {
  const { passed, failed, skipped, warnings } = report.summary;
  const total = report.checks.length;
  return `${total} check${total === 1 ? '' : 's'}: ${passed} passed, ${failed} failed, ${skipped} skipped, ${warnings} warning${warnings === 1 ? '' : 's'} (${(report.durationMs / 1000).toFixed(1)} s)`;
}

/** The report as terminal lines. */
export function formatTerminalReport(
  report: CheckReport,
  style: ReportStyle = PLAIN_STYLE,
): string[] {
  const lines: string[] = [];
  const { agent } = report;
  lines.push(style.bold(`${agent.name ?? 'Agent'} — ${agent.cardUrl}`));
  lines.push(
    style.dim(
      `A2A ${report.versions.join(', ')} · ${report.bindings.join(', ') || 'no interface checked'}`,
    ),
  );
  const idWidth = Math.max(0, ...report.checks.map((r) => r.id.length));
  const tagWidth = Math.max(0, ...report.checks.map((r) => bindingTag(r).length));
  for (const { area, title } of CHECK_AREAS) {
    const results = report.checks.filter((r) => r.area === area);
    if (results.length === 0) continue;
    lines.push('', style.bold(title));
    for (const result of results) {
      const paint = style[result.status];
      const head = `  ${paint(markOf(result.status))} ${result.id.padEnd(idWidth)}  ${bindingTag(result).padEnd(tagWidth)}`;
      if (result.status === 'pass') {
        lines.push(`${head}  ${result.title}  ${style.dim(result.section)}`);
        continue;
      }
      if (result.status === 'skip') {
        lines.push(style.dim(`${head}  ${result.title} — ${result.detail}`));
        continue;
      }
      lines.push(
        `${head}  ${result.title}  ${style.dim(`${result.level.toUpperCase()} ${result.section}`)}`,
      );
      lines.push(`      ${paint(oneLine(result.detail, 400))}`);
      if (result.request !== undefined)
        lines.push(style.dim(`      ${requestLine(result.request)}`));
      if (result.response !== undefined)
        lines.push(style.dim(`      ${responseLine(result.response)}`));
    }
  }
  lines.push('');
  const failed = report.summary.failed > 0;
  lines.push((failed ? style.fail : style.pass)(summaryLine(report)));
  return lines;
}
