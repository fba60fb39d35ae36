/**
 * The checker against an agent with planted defects (fixtures/broken-agent.ts, bare node:http):
 * every defect must be reported under its check, and nothing else may fail or warn — a checker
 * that raises false alarms is as useless as one that misses defects.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAgent, type CheckReport } from '../../src/check.js';
import { startCliServer } from '../cli/cli-server.js';
import { startBrokenAgent, type BrokenAgentServer } from './fixtures/broken-agent.js';
import { label, labelsOf } from './support.js';

let agent: BrokenAgentServer;
let report: CheckReport;

beforeAll(async () => {
  agent = await startBrokenAgent();
  report = await checkAgent(agent.url);
});

afterAll(() => agent.close());

describe('tandem/check against an agent with planted defects', () => {
  it('reports each planted defect under its check id, and fails nothing else', () => {
    expect(labelsOf(report, 'fail')).toEqual(
      [
        // The card has no skills.
        'card.required-fields',
        // A2A-Version is ignored: 99.0 is served, and so is a request without it.
        'version.unsupported [JSONRPC 1.0]',
        'version.unsupported [HTTP+JSON 1.0]',
        'version.missing [JSONRPC 1.0]',
        'version.missing [HTTP+JSON 1.0]',
        // JSON-RPC answers an unknown task with -32603.
        'task.get-unknown [JSONRPC 1.0]',
        // A finished task is canceled all the same.
        'task.cancel-terminal [JSONRPC 1.0]',
        'task.cancel-terminal [HTTP+JSON 1.0]',
        // JSON-RPC streams begin with a status update.
        'stream.first-event [JSONRPC 1.0]',
        // HTTP+JSON streams carry a stray line before their first event.
        'stream.framing [HTTP+JSON 1.0]',
      ].sort(),
    );
  });

  it('warns only of the planted SHOULD defect', () => {
    expect(labelsOf(report, 'warn')).toEqual(['rest.unknown-route [HTTP+JSON 1.0]']);
  });

  it('says why for each failure, with its section and the exchange that shows it', () => {
    const wrongCode = report.checks.find((c) => label(c) === 'task.get-unknown [JSONRPC 1.0]');
    expect(wrongCode).toMatchObject({ level: 'must', section: '§3.1.3', area: 'messages' });
    expect(wrongCode?.detail).toMatch(
      /expected TaskNotFoundError \(-32001\).*InternalError \(-32603\)/,
    );
    expect(wrongCode?.request?.body).toContain('"method":"GetTask"');
    expect(wrongCode?.response?.body).toContain('-32603');
    const stray = report.checks.find((c) => label(c) === 'stream.framing [HTTP+JSON 1.0]');
    expect(stray?.detail).toContain('"x"');
    expect(stray?.response?.body).toMatch(/^x\ndata: /);
    for (const failure of report.checks.filter((c) => c.status === 'fail')) {
      expect(failure.request, failure.id).toBeDefined();
      expect(failure.response, failure.id).toBeDefined();
    }
  });

  it('counts the results in the summary', () => {
    const { passed, failed, skipped, warnings } = report.summary;
    expect(passed + failed + skipped + warnings).toBe(report.checks.length);
    expect(failed).toBe(10);
    expect(report.versions).toEqual(['1.0']);
    expect(report.bindings).toEqual(['JSONRPC', 'HTTP+JSON']);
    expect(report.agent).toMatchObject({
      name: 'Broken agent',
      cardUrl: `${agent.url}/.well-known/agent-card.json`,
    });
  });
});

describe('tandem/check of capabilities a card does not declare', () => {
  it('passes the refusals of an agent without streaming, push or an extended card', async () => {
    const server = await startCliServer();
    try {
      const plain = await checkAgent(server.urlOf('plain'), {
        only: ['stream.unsupported', 'push.unsupported', 'card.extended-undeclared'],
      });
      expect(plain.checks.map((c) => `${label(c)} ${c.status}`)).toEqual([
        'card.extended-undeclared [JSONRPC 1.0] pass',
        'card.extended-undeclared [HTTP+JSON 1.0] pass',
        'stream.unsupported [JSONRPC 1.0] pass',
        'stream.unsupported [HTTP+JSON 1.0] pass',
        'push.unsupported [JSONRPC 1.0] pass',
        'push.unsupported [HTTP+JSON 1.0] pass',
      ]);
    } finally {
      await server.close();
    }
  });
});
