/**
 * `tandem/check`: a conformance checker for any A2A agent, 1.0 or 0.3, over JSON-RPC, HTTP+JSON
 * and gRPC. `checkAgent(url)` finds the agent's card, checks it and every interface it declares
 * against the specification, and returns a report in which every result names its check, the
 * level and section of the requirement, and the request and response that show it.
 *
 * Any new export added here becomes public API. Use named exports, not wildcards. This entry runs
 * on Node.js: the checker sends its probes with undici, `node:http` and grpc-js.
 */

export { checkAgent, DEFAULT_CHECK_TIMEOUT_MS } from './check/check-agent.js';
export { CHECK_AREAS, CHECKS, checkDefinition } from './check/catalogue.js';
export { AgentUnreachableError } from './check/check-errors.js';
export type {
  CheckArea,
  CheckBindingName,
  CheckDefinition,
  CheckedAgent,
  CheckLevel,
  CheckOptions,
  CheckProtocolVersion,
  CheckReport,
  CheckResult,
  CheckStatus,
  CheckSummary,
  WireRequest,
  WireResponse,
} from './check/check-types.js';
export { formatJsonReport } from './check/render/json-report.js';
export { formatJUnitReport } from './check/render/junit-report.js';
export {
  formatTerminalReport,
  markOf,
  PLAIN_STYLE,
  summaryLine,
} from './check/render/terminal-report.js';
export type { ReportStyle } from './check/render/terminal-report.js';
