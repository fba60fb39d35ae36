/**
 * `tandem schema [Type]` as a user runs it: the JSON Schema bundle or one type's schema on
 * stdout and usage errors with close names (test/cli/cli-bundles.test.ts keeps it out of `serve`).
 */

import { beforeAll, describe, expect, it } from 'vitest';
import { jsonSchemaBundle, jsonSchemaOf } from '../../src/index.js';
import { ensureBuilt, runCli } from './cli-harness.js';

beforeAll(() => ensureBuilt(), 60_000);

describe.concurrent('tandem schema', () => {
  it('prints the bundle without an argument', async () => {
    const { code, stdout, stderr } = await runCli(['schema']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual(jsonSchemaBundle());
  });

  it.each(['Task', 'SendMessageRequest', 'TaskState'] as const)(
    'prints the self-contained schema of %s',
    async (type) => {
      const { code, stdout, stderr } = await runCli(['schema', type]);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(JSON.parse(stdout)).toEqual(jsonSchemaOf(type));
    },
  );

  it.each([
    [['schema', 'Taks'], 'tandem schema: unknown message or enum "Taks"; did you mean Task?'],
    [
      ['schema', 'sendmessagerequest'],
      'tandem schema: unknown message or enum "sendmessagerequest"; did you mean SendMessageRequest',
    ],
    [['schema', 'Nothing'], 'types are the messages and enums of a2a.proto, e.g. Task'],
    [['schema', 'Task', 'Message'], 'tandem schema: unexpected argument "Message"'],
    [['schema', '--bogus'], 'tandem schema: unknown option --bogus'],
  ])('%j exits 2 with a hint and prints nothing on stdout', async (args, message) => {
    const { code, stdout, stderr } = await runCli(args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(message);
    expect(stderr).toContain('Run `tandem schema --help` for the usage.');
  });

  it('--help prints its usage', async () => {
    const { code, stdout } = await runCli(['schema', '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: tandem schema \[Type\]/);
  });

  it('is listed by tandem --help', async () => {
    const { stdout } = await runCli(['--help']);
    expect(stdout).toMatch(/^ {2}schema +Print the JSON Schema/m);
  });
});
