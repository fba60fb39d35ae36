/**
 * A report as the JSON document of `tandem check --json`: the report object itself, indented,
 * with a final newline. The report holds only JSON values, so this is the whole contract.
 */

import type { CheckReport } from '../check-types.js';

/** The report as a JSON document. */
export function formatJsonReport(report: CheckReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
