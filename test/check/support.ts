/**
 * What the checker's tests share: results named the way the tests list expected defects
 * (`task.get-unknown [JSONRPC 1.0]`, `card.schema` for the card's own checks), and `tandem serve`
 * as a child process from the build.
 */

import type { CheckReport, CheckResult } from '../../src/check.js';
import { CLI, ServerProcess, SERVE_URL_LINE } from '../support/processes.js';

/** `id [BINDING version]`, or the id alone for the card's checks. */
export function label(result: CheckResult): string {
  return result.binding === null
    ? result.id
    : `${result.id} [${result.binding} ${result.version ?? ''}]`;
}

/** The labels of the results of `status`, sorted. */
export function labelsOf(report: CheckReport, status: CheckResult['status']): string[] {
  return report.checks
    .filter((c) => c.status === status)
    .map(label)
    .sort();
}

/** A running `tandem serve`. */
export interface TandemServer {
  readonly url: string;
  /** The gRPC address, when served. */
  readonly grpc: string | undefined;
  stop(): Promise<void>;
}

/** Starts `tandem serve` (memory store, quiet) with `args`. */
export async function startTandem(args: readonly string[]): Promise<TandemServer> {
  const server = new ServerProcess([
    CLI,
    'serve',
    '--store',
    'memory',
    '--port',
    '0',
    '--log-level',
    'warn',
    ...args,
  ]);
  const match = await server.line(SERVE_URL_LINE, 10_000);
  const url = match[1] ?? '';
  const grpc = args.includes('--grpc-port')
    ? (await server.line(/^\s+gRPC\s+(\S+)$/, 10_000))[1]
    : undefined;
  return { url, grpc, stop: () => server.kill9() };
}
