/**
 * The checker against Tandem's own agents, `tandem serve` from the build as a child process, over
 * JSON-RPC, HTTP+JSON and gRPC: no failure, and nothing skipped that the card declares (a check
 * may skip only a feature the card does not declare, or a behaviour the agent does not have, such
 * as asking for input). With `--compat 0.3` the same for the 0.3 interfaces, minus the defects of
 * Tandem's 0.3 layer that the checker found (listed below, and in the report of issue #35).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAgent, type CheckReport, type CheckResult } from '../../src/check.js';
import { requireBuild } from '../support/processes.js';
import { label, labelsOf, startTandem, type TandemServer } from './support.js';

/** Skips about what the card does not declare, or declares otherwise. */
const NOT_DECLARED = [
  /^the card does not declare/,
  /^the card declares (streaming|push notifications|an extended card)/,
  /^the card is not signed$/,
  /^the card requires no authentication$/,
  /declares no security scheme/,
];

/** Skips about a behaviour an agent may simply not have (none of these is a card declaration). */
const NOT_DONE = [
  /before it could be (canceled|subscribed to)/,
  /by the time it was subscribed to/,
  /^the agent asked for no input/,
];

function unexpectedSkips(report: CheckReport, allowBehaviour: boolean): string[] {
  const allowed = allowBehaviour ? [...NOT_DECLARED, ...NOT_DONE] : NOT_DECLARED;
  return report.checks
    .filter(
      (c: CheckResult) => c.status === 'skip' && !allowed.some((pattern) => pattern.test(c.detail)),
    )
    .map((c) => `${label(c)}: ${c.detail}`);
}

/** Defects of Tandem found by the checker and not fixed yet (see docs/check.md): none. */
const KNOWN_TANDEM_DEFECTS: readonly string[] = [];

describe('tandem/check against tandem serve', () => {
  let server: TandemServer;

  beforeAll(async () => {
    requireBuild();
    server = await startTandem([
      '--grpc-port',
      '0',
      '--compat',
      '0.3',
      '--push-allow',
      '127.0.0.1',
    ]);
  });

  afterAll(() => server.stop());

  it.each(['dice', 'translator', 'echo', 'conformance'])(
    'finds no defect in the %s agent over JSON-RPC, HTTP+JSON and gRPC',
    async (agent) => {
      const report = await checkAgent(`${server.url}/agents/${agent}`, { versions: ['1.0'] });
      expect(report.bindings).toEqual(['JSONRPC', 'HTTP+JSON', 'GRPC']);
      expect(labelsOf(report, 'fail')).toEqual([]);
      expect(unexpectedSkips(report, agent !== 'conformance')).toEqual([]);
      expect(labelsOf(report, 'warn')).toEqual([]);
    },
  );

  it('checks the first agent at 0.3 too', async () => {
    const report = await checkAgent(`${server.url}/agents/dice`, { versions: ['0.3'] });
    expect(report.versions).toEqual(['0.3']);
    expect(labelsOf(report, 'fail').filter((l) => !KNOWN_TANDEM_DEFECTS.includes(l))).toEqual([]);
    expect(unexpectedSkips(report, true)).toEqual([]);
  });
});

describe('tandem/check against tandem serve --agent conformance --compat 0.3', () => {
  let server: TandemServer;
  let report: CheckReport;

  beforeAll(async () => {
    requireBuild();
    server = await startTandem([
      '--agent',
      'conformance',
      '--grpc-port',
      '0',
      '--compat',
      '0.3',
      '--push-allow',
      '127.0.0.1',
    ]);
    report = await checkAgent(server.url);
  });

  afterAll(() => server.stop());

  it('speaks 1.0 and 0.3 on every binding', () => {
    expect(report.versions).toEqual(['1.0', '0.3']);
    expect(report.bindings).toEqual(['JSONRPC', 'HTTP+JSON', 'GRPC']);
  });

  it('fails nothing but the known defects, and skips nothing the card declares', () => {
    expect(labelsOf(report, 'fail').filter((l) => !KNOWN_TANDEM_DEFECTS.includes(l))).toEqual([]);
    expect(unexpectedSkips(report, false)).toEqual([]);
  });

  it('delivers push notifications and keeps a subscription live on 1.0', () => {
    for (const binding of ['JSONRPC', 'HTTP+JSON', 'GRPC']) {
      for (const id of [
        'push.delivery',
        'stream.subscribe',
        'stream.resume',
        'task.cancel',
        'message.multi-turn',
      ]) {
        const result = report.checks.find(
          (c) => c.id === id && c.binding === binding && c.version === '1.0',
        );
        expect(result?.status, `${id} ${binding}`).toBe('pass');
      }
    }
  });
});
