/**
 * How `tandem check` draws on a terminal: the progress line while checks run (on stderr, a TTY
 * only, through the terminal's spinner) and the report's lines in the terminal's colours.
 */

import { formatTerminalReport, markOf, type CheckReport, type CheckResult } from '../check.js';
import type { Terminal } from './terminal.js';

/** The progress line: `12/276 · ✗ 1 · task.get-unknown [JSONRPC]`. */
export function progressText(progress: {
  readonly done: number;
  readonly total: number;
  readonly failed: number;
  readonly current: CheckResult;
}): string {
  const { done, total, failed, current } = progress;
  const where =
    current.binding === null
      ? ''
      : ` [${current.binding}${current.version === '0.3' ? ' 0.3' : ''}]`;
  const failures = failed === 0 ? '' : ` · ${failed} failed`;
  return `checking ${done}/${total}${failures} · ${markOf(current.status)} ${current.id}${where}`;
}

/** Writes the report to stdout in the terminal's colours. */
export function writeReport(terminal: Terminal, report: CheckReport): void {
  const { style } = terminal;
  const lines = formatTerminalReport(report, {
    pass: style.green,
    fail: style.red,
    warn: style.yellow,
    skip: style.dim,
    dim: style.dim,
    bold: style.bold,
  });
  for (const line of lines) terminal.line(line);
}
