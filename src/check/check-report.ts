/**
 * Results and the report: a verdict dressed with what the catalogue says of its check (title,
 * the level and section of the version it ran on), a failed SHOULD or MAY turned into a warning,
 * and the whole report in a stable order — catalogue order, then binding, then version — however
 * the checks interleaved while running.
 */

import { CHECKS } from './catalogue.js';
import type {
  CheckBindingName,
  CheckDefinition,
  CheckedAgent,
  CheckProtocolVersion,
  CheckReport,
  CheckResult,
  CheckSummary,
} from './check-types.js';
import { levelOf, sectionOf } from './check-plan.js';
import type { Verdict } from './verdict.js';

/** The result of a check on an interface (or, with no target, on the card). */
export function resultOf(
  definition: CheckDefinition,
  verdict: Verdict,
  target:
    { readonly binding: CheckBindingName; readonly version: CheckProtocolVersion } | undefined,
  cardForm: CheckProtocolVersion,
): CheckResult {
  const version = target?.version ?? cardForm;
  const level = levelOf(definition, version);
  const status = verdict.status === 'fail' && level !== 'must' ? 'warn' : verdict.status;
  const result: CheckResult = {
    id: definition.id,
    title: definition.title,
    level,
    section: sectionOf(definition, version),
    area: definition.area,
    binding: target?.binding ?? null,
    version: target?.version ?? null,
    status,
    detail: verdict.detail,
  };
  const exchange = verdict.exchange;
  if (exchange === undefined || status === 'skip') return result;
  return {
    ...result,
    request: exchange.request,
    ...(exchange.response === undefined ? {} : { response: exchange.response }),
  };
}

const BINDING_ORDER: readonly (CheckBindingName | null)[] = [null, 'JSONRPC', 'HTTP+JSON', 'GRPC'];
const VERSION_ORDER: readonly (CheckProtocolVersion | null)[] = [null, '1.0', '0.3'];

function orderOf(result: CheckResult): [number, number, number] {
  return [
    CHECKS.findIndex((c) => c.id === result.id),
    BINDING_ORDER.indexOf(result.binding),
    VERSION_ORDER.indexOf(result.version),
  ];
}

/** Counts results by status. */
export function summaryOf(results: readonly CheckResult[]): CheckSummary {
  const count = (status: CheckResult['status']): number =>
    results.filter((r) => r.status === status).length;
  return {
    passed: count('pass'),
    failed: count('fail'),
    skipped: count('skip'),
    warnings: count('warn'),
  };
}

/** The report of a run. */
export function reportOf(
  agent: CheckedAgent,
  versions: readonly CheckProtocolVersion[],
  bindings: readonly CheckBindingName[],
  results: readonly CheckResult[],
  durationMs: number,
): CheckReport {
  const checks = [...results].sort((a, b) => {
    const [x, y] = [orderOf(a), orderOf(b)];
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  });
  return { agent, versions, bindings, summary: summaryOf(checks), checks, durationMs };
}
