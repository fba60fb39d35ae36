/**
 * The checker against the official JS SDK's servers, 1.x (`@a2a-js/sdk`) and 0.3
 * (`a2a-sdk-v03`), over JSON-RPC, HTTP+JSON and gRPC. The defects it finds are the ones
 * docs/check.md names and weighs against the specification; this test holds the two together, so
 * a new finding (or a fixed SDK) shows as a change here and in the docs.
 */

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkAgent, type CheckReport } from '../../src/check.js';
import { startSdkV1Server } from './fixtures/sdk-v1-server.js';
import { startSdkV03Server } from './fixtures/sdk-v03-server.js';
import type { SdkServer } from './fixtures/sdk-v1-server.js';
import { label, labelsOf } from './support.js';

// The SDKs log every error they answer and every notification they send on the console; the
// checker elicits hundreds. Their words are not what this test reads.
beforeAll(() => {
  for (const method of ['log', 'info', 'warn', 'error'] as const) {
    vi.spyOn(console, method).mockImplementation(() => undefined);
  }
});
afterAll(() => vi.restoreAllMocks());

describe('tandem/check against @a2a-js/sdk 1.x', () => {
  let server: SdkServer;
  let report: CheckReport;

  beforeAll(async () => {
    server = await startSdkV1Server();
    report = await checkAgent(server.url);
  });

  afterAll(() => server.close());

  it('checks the three bindings at 1.0', () => {
    expect(report.versions).toEqual(['1.0']);
    expect(report.bindings).toEqual(['JSONRPC', 'HTTP+JSON', 'GRPC']);
  });

  it('finds the JSON-RPC defects', () => {
    expect(labelsOf(report, 'fail')).toEqual([
      'jsonrpc.invalid-request [JSONRPC 1.0]',
      'jsonrpc.notification [JSONRPC 1.0]',
    ]);
    const invalid = report.checks.find((c) => label(c) === 'jsonrpc.invalid-request [JSONRPC 1.0]');
    expect(invalid?.detail).toContain('-32602');
  });

  it('warns of invalid params without field detail and of HTML for unknown paths', () => {
    expect(labelsOf(report, 'warn')).toEqual([
      'rest.unknown-route [HTTP+JSON 1.0]',
      'task.invalid-params-detail [GRPC 1.0]',
      'task.invalid-params-detail [HTTP+JSON 1.0]',
      'task.invalid-params-detail [JSONRPC 1.0]',
    ]);
    const html = report.checks.find((c) => label(c) === 'rest.unknown-route [HTTP+JSON 1.0]');
    expect(html?.response?.body).toContain('Cannot GET');
  });

  it('delivers push notifications and serves every operation it declares', () => {
    for (const binding of ['JSONRPC', 'HTTP+JSON', 'GRPC']) {
      for (const id of [
        'push.delivery',
        'push.create',
        'stream.subscribe',
        'task.cancel',
        'message.multi-turn',
      ]) {
        expect(
          report.checks.find((c) => c.id === id && c.binding === binding)?.status,
          `${id} ${binding}`,
        ).toBe('pass');
      }
    }
  });
});

describe('tandem/check against a2a-sdk-v03 (0.3)', () => {
  let server: SdkServer;
  let report: CheckReport;

  beforeAll(async () => {
    server = await startSdkV03Server();
    report = await checkAgent(server.url);
  });

  afterAll(() => server.close());

  it('reads the 0.3 card and speaks 0.3 on the three bindings', () => {
    expect(report.versions).toEqual(['0.3']);
    expect(report.bindings).toEqual(['JSONRPC', 'HTTP+JSON', 'GRPC']);
    expect(report.checks.every((c) => c.version === null || c.version === '0.3')).toBe(true);
    expect(report.checks.find((c) => c.id === 'card.schema')?.section).toBe('0.3 §5.5');
  });

  it('finds the 0.3 defects', () => {
    expect(labelsOf(report, 'fail')).toEqual([
      'jsonrpc.notification [JSONRPC 0.3]',
      'task.invalid-params [JSONRPC 0.3]',
    ]);
    expect(labelsOf(report, 'warn')).toEqual([
      'push.get-unknown [GRPC 0.3]',
      'push.get-unknown [HTTP+JSON 0.3]',
      'push.get-unknown [JSONRPC 0.3]',
      'rest.unknown-route [HTTP+JSON 0.3]',
      'task.history-length [JSONRPC 0.3]',
    ]);
  });

  it('checks the 0.3 shapes: kinds and final', () => {
    expect(report.checks.find((c) => label(c) === 'v03.kinds [JSONRPC 0.3]')?.status).toBe('pass');
    for (const binding of ['JSONRPC', 'HTTP+JSON', 'GRPC']) {
      expect(report.checks.find((c) => c.id === 'v03.final' && c.binding === binding)?.status).toBe(
        'pass',
      );
    }
  });
});
