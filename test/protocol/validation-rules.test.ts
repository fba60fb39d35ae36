/**
 * Rules of `parseMessage` that the fixture corpus does not make obvious: what the returned value
 * keeps, how `null` reads, that nothing is coerced, how paths are written, that every violation is
 * reported — and that the root entry point exposes the protocol layer, and `tandem/codecs` the
 * encodings, without `node:` imports.
 */

import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it, expect } from 'vitest';
import * as codecs from '../../src/codecs.js';
import * as index from '../../src/index.js';
import { decodeBase64, encodeBase64 } from '../../src/protocol/base64.js';
import {
  agentMessage,
  dataPart,
  fileBytesPart,
  fileUrlPart,
  newArtifact,
  nowTimestamp,
  textPart,
  userMessage,
} from '../../src/protocol/builders.js';
import {
  A2A_ERROR_TYPES,
  defaultMessageOf,
  errorReasonOf,
  grpcStatusCode,
  grpcStatusOf,
  httpStatusOf,
  jsonRpcCodeOf,
} from '../../src/protocol/error-codes.js';
import {
  fromHttpErrorBody,
  fromJsonRpcError,
  grpcCodeOf,
  toHttpErrorBody,
  toJsonRpcError,
} from '../../src/protocol/error-serialization.js';
import {
  A2AError,
  InvalidParamsError,
  TaskNotFoundError,
  createA2AError,
  isA2AError,
} from '../../src/protocol/errors.js';
import {
  InvalidTransitionError,
  LocalError,
  isLocalError,
} from '../../src/protocol/local-errors.js';
import {
  assertTransition,
  canTransition,
  isFinalOrInterruptedState,
  isInterruptedState,
  isTerminalState,
} from '../../src/protocol/task-state.js';
import { parseMessage, parseMessageOrThrow } from '../../src/protocol/validation.js';
import { parseProtocolVersion } from '../../src/protocol/version.js';

const MESSAGE = { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] };

function valueOf<T>(result: { success: true; value: T } | { success: false }): T {
  if (!result.success) throw new Error('expected a successful parse');
  return result.value;
}

function violationsOf(result: { success: boolean; violations?: unknown }): unknown {
  return result.success ? [] : result.violations;
}

function fieldsOf(result: { success: true } | { success: false; violations: { field: string }[] }) {
  return result.success ? [] : result.violations.map((v) => v.field);
}

/** A minimal valid AgentCard. */
function agentCard(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Recipe Agent',
    description: 'Helps with recipes',
    supportedInterfaces: [
      { url: 'https://agent.example.com/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ],
    version: '1.0.0',
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 's', name: 'Cook', description: 'Cooks', tags: ['food'] }],
    ...extra,
  };
}

describe('unknown fields', () => {
  it('are dropped from the returned value at every depth', () => {
    const input = {
      extraRoot: 1,
      message: {
        ...MESSAGE,
        extraMessage: true,
        parts: [{ text: 'hi', extraPart: 'x' }],
      },
      configuration: {
        extraConfiguration: [],
        historyLength: 2,
        taskPushNotificationConfig: {
          url: 'https://client.example.com/hook',
          extraConfig: {},
          authentication: { scheme: 'Bearer', extraAuth: null },
        },
      },
    };
    expect(valueOf(parseMessage('SendMessageRequest', input))).toStrictEqual({
      message: { ...MESSAGE, parts: [{ text: 'hi' }] },
      configuration: {
        historyLength: 2,
        taskPushNotificationConfig: {
          url: 'https://client.example.com/hook',
          authentication: { scheme: 'Bearer' },
        },
      },
    });
  });

  it('are dropped inside map values and oneof members', () => {
    const card = agentCard({
      securitySchemes: {
        bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', extraScheme: 1 }, extraWrapper: 2 },
      },
    });
    const value = valueOf(parseMessage('AgentCard', card));
    expect(value.securitySchemes).toStrictEqual({
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } },
    });
  });

  it('are kept inside Struct and Value fields, which hold arbitrary JSON', () => {
    const metadata = { anything: { nested: [1, { deep: true }] }, n: null };
    const input = {
      ...MESSAGE,
      metadata,
      parts: [{ data: { free: { form: ['json', null] } }, metadata: { k: 'v' } }],
    };
    const value = valueOf(parseMessage('Message', input));
    expect(value.metadata).toStrictEqual(metadata);
    expect(value.parts).toStrictEqual([
      { data: { free: { form: ['json', null] } }, metadata: { k: 'v' } },
    ]);
  });

  it('do not make a message invalid', () => {
    expect(
      parseMessage('Task', { id: 't', status: { state: 'TASK_STATE_WORKING' }, x: 1 }),
    ).toMatchObject({ success: true });
  });
});

describe('null', () => {
  it('on an optional field reads as unset and is absent from the output', () => {
    const value = valueOf(
      parseMessage('Message', {
        ...MESSAGE,
        contextId: null,
        taskId: null,
        metadata: null,
        extensions: null,
        referenceTaskIds: null,
      }),
    );
    expect(value).toStrictEqual(MESSAGE);
    for (const key of ['contextId', 'taskId', 'metadata', 'extensions', 'referenceTaskIds']) {
      expect(key in value, key).toBe(false);
    }
  });

  it('on optional nested messages, enums, ints and bools reads as unset', () => {
    const result = parseMessage('ListTasksRequest', {
      status: null,
      pageSize: null,
      historyLength: null,
      includeArtifacts: null,
      statusTimestampAfter: null,
    });
    expect(violationsOf(result)).toEqual([]);
    expect(Object.values(valueOf(result)).every((v) => v === undefined)).toBe(true);
  });

  it('on optional nested messages, enums, ints and bools leaves them absent from the output', () => {
    const value = valueOf(
      parseMessage('ListTasksRequest', {
        status: null,
        pageSize: null,
        historyLength: null,
        includeArtifacts: null,
        statusTimestampAfter: null,
      }),
    );
    expect(value).toStrictEqual({});
  });

  it('on an unset oneof member does not count as set', () => {
    const result = parseMessage('Part', { text: null, url: 'https://e.com/f' });
    expect(violationsOf(result)).toEqual([]);
    expect(valueOf(result).url).toBe('https://e.com/f');
  });

  it('on an unset oneof member leaves it absent from the output', () => {
    const value = valueOf(parseMessage('Part', { text: null, url: 'https://e.com/f' }));
    expect(value).toStrictEqual({ url: 'https://e.com/f' });
    expect('text' in value).toBe(false);
  });

  it('on a required field is a violation', () => {
    expect(fieldsOf(parseMessage('Message', { ...MESSAGE, messageId: null }))).toEqual([
      'messageId',
    ]);
    expect(fieldsOf(parseMessage('Message', { ...MESSAGE, role: null }))).toEqual(['role']);
  });

  it('is a valid data Part: the JSON null of google.protobuf.Value', () => {
    const result = parseMessage('Part', { data: null });
    expect(result.success).toBe(true);
    const value = valueOf(result);
    expect('data' in value).toBe(true);
    expect(value.data).toBeNull();
  });

  it('as data, next to another member, sets two members of the oneof', () => {
    expect(parseMessage('Part', { text: 'x', data: null }).success).toBe(false);
  });

  it('is the JSON null inside a Struct', () => {
    const value = valueOf(
      parseMessage('Task', {
        id: 't',
        status: { state: 'TASK_STATE_WORKING' },
        metadata: { cleared: null },
      }),
    );
    expect(value.metadata).toStrictEqual({ cleared: null });
  });
});

describe('no coercion', () => {
  it.each([
    ['a string for int32', 'GetTaskRequest', { id: 't', historyLength: '5' }, 'historyLength'],
    ['a float for int32', 'GetTaskRequest', { id: 't', historyLength: 5.5 }, 'historyLength'],
    ['2^31 for int32', 'GetTaskRequest', { id: 't', historyLength: 2 ** 31 }, 'historyLength'],
    ['a bool for int32', 'GetTaskRequest', { id: 't', historyLength: true }, 'historyLength'],
    [
      'a string for bool',
      'SendMessageConfiguration',
      { returnImmediately: 'true' },
      'returnImmediately',
    ],
    [
      'a number for bool',
      'SendMessageConfiguration',
      { returnImmediately: 1 },
      'returnImmediately',
    ],
    ['a number for string', 'Message', { ...MESSAGE, messageId: 5 }, 'messageId'],
    ['a bool for string', 'Message', { ...MESSAGE, contextId: false }, 'contextId'],
    ['an array for string', 'Message', { ...MESSAGE, taskId: ['t'] }, 'taskId'],
    ['a lowercase enum name', 'Message', { ...MESSAGE, role: 'role_user' }, 'role'],
    ['a string for a repeated field', 'Message', { ...MESSAGE, extensions: 'urn:x' }, 'extensions'],
    ['an array for a Struct', 'Message', { ...MESSAGE, metadata: [1] }, 'metadata'],
    ['a string for a message', 'SendMessageRequest', { message: 'hi' }, 'message'],
  ] as const)('rejects %s', (_label, messageName, input, field) => {
    const result = parseMessage(messageName, input);
    expect(result.success).toBe(false);
    expect(fieldsOf(result)).toContain(field);
  });

  it('returns the values as given when they have the proto types', () => {
    const value = valueOf(
      parseMessage('SendMessageConfiguration', { historyLength: 5, returnImmediately: true }),
    );
    expect(value).toStrictEqual({ historyLength: 5, returnImmediately: true });
  });
});

describe('paths', () => {
  it('name the root by the message name by default', () => {
    expect(fieldsOf(parseMessage('SendMessageRequest', 5))).toEqual(['SendMessageRequest']);
  });

  it('name the root by the `root` option', () => {
    expect(fieldsOf(parseMessage('SendMessageRequest', 'x', { root: 'params' }))).toEqual([
      'params',
    ]);
    expect(fieldsOf(parseMessage('SendMessageRequest', null, { root: 'params' }))).toEqual([
      'params',
    ]);
  });

  it('stay relative below the root', () => {
    const result = parseMessage(
      'SendMessageRequest',
      { message: { ...MESSAGE, parts: [] } },
      { root: 'params' },
    );
    expect(fieldsOf(result)).toEqual(['message.parts']);
  });

  it('index arrays and chain nested fields', () => {
    const result = parseMessage('SendMessageRequest', {
      message: { ...MESSAGE, parts: [{ text: 'ok' }, { raw: 5 }] },
    });
    expect(fieldsOf(result)).toEqual(['message.parts[1].raw']);
  });

  it('quote map keys that are not identifiers', () => {
    const result = parseMessage(
      'AgentCard',
      agentCard({ securitySchemes: { 'my scheme': {}, ok_key: { mtlsSecurityScheme: 7 } } }),
    );
    expect(fieldsOf(result)).toEqual([
      'securitySchemes["my scheme"]',
      'securitySchemes.ok_key.mtlsSecurityScheme',
    ]);
  });

  it('quote keys with quotes and dots safely', () => {
    const result = parseMessage(
      'AgentCard',
      agentCard({ securitySchemes: { 'a"b.c': { apiKeySecurityScheme: {} } } }),
    );
    expect(fieldsOf(result)).toEqual([
      'securitySchemes["a\\"b.c"].apiKeySecurityScheme.location',
      'securitySchemes["a\\"b.c"].apiKeySecurityScheme.name',
    ]);
  });
});

describe('many violations', () => {
  it('are all listed, at every depth, in one result', () => {
    const result = parseMessage('SendMessageRequest', {
      tenant: 7,
      metadata: 'not an object',
      message: {
        messageId: '',
        role: 'ROLE_UNSPECIFIED',
        parts: [{ text: 'ok' }, {}, { text: 'a', url: 'b' }, { raw: '***' }],
        referenceTaskIds: ['ok', 3],
      },
      configuration: {
        historyLength: -1,
        returnImmediately: 'yes',
        taskPushNotificationConfig: { authentication: {} },
      },
    });
    expect(result.success).toBe(false);
    const fields = fieldsOf(result);
    expect([...fields].sort()).toEqual(
      [
        'tenant',
        'metadata',
        'message.messageId',
        'message.role',
        'message.parts[1]',
        'message.parts[2]',
        'message.parts[3].raw',
        'message.referenceTaskIds[1]',
        'configuration.historyLength',
        'configuration.returnImmediately',
        'configuration.taskPushNotificationConfig.url',
        'configuration.taskPushNotificationConfig.authentication.scheme',
      ].sort(),
    );
    expect(fields.length).toBeGreaterThanOrEqual(6);
    expect(new Set(fields.map((f) => f.split(/[.[]/).length)).size).toBeGreaterThanOrEqual(3);
  });

  it('each carry a description saying what is wrong', () => {
    const result = parseMessage('GetTaskRequest', { id: '', historyLength: 'x', tenant: 1 });
    const violations = violationsOf(result) as { field: string; description: string }[];
    expect(violations.length).toBe(3);
    for (const v of violations) expect(v.description.length).toBeGreaterThan(5);
  });

  it('become one InvalidParamsError from parseMessageOrThrow', () => {
    let thrown: unknown;
    try {
      parseMessageOrThrow('Message', { messageId: 1, role: 'X', parts: [] });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidParamsError);
    const fields = (thrown as InvalidParamsError).violations.map((v) => v.field).sort();
    expect(fields).toEqual(['messageId', 'parts', 'role']);
  });

  it('are absent from a successful parseMessageOrThrow, which returns the value', () => {
    expect(parseMessageOrThrow('Message', { ...MESSAGE, junk: 1 })).toStrictEqual(MESSAGE);
  });
});

describe('src/index.ts', () => {
  const reExports: [string, unknown][] = [
    ['parseMessage', parseMessage],
    ['parseMessageOrThrow', parseMessageOrThrow],
    ['A2A_ERROR_TYPES', A2A_ERROR_TYPES],
    ['defaultMessageOf', defaultMessageOf],
    ['errorReasonOf', errorReasonOf],
    ['grpcStatusCode', grpcStatusCode],
    ['grpcStatusOf', grpcStatusOf],
    ['httpStatusOf', httpStatusOf],
    ['jsonRpcCodeOf', jsonRpcCodeOf],
    ['A2AError', A2AError],
    ['InvalidParamsError', InvalidParamsError],
    ['TaskNotFoundError', TaskNotFoundError],
    ['createA2AError', createA2AError],
    ['isA2AError', isA2AError],
    ['toJsonRpcError', toJsonRpcError],
    ['toHttpErrorBody', toHttpErrorBody],
    ['fromJsonRpcError', fromJsonRpcError],
    ['fromHttpErrorBody', fromHttpErrorBody],
    ['grpcCodeOf', grpcCodeOf],
    ['LocalError', LocalError],
    ['InvalidTransitionError', InvalidTransitionError],
    ['isLocalError', isLocalError],
    ['canTransition', canTransition],
    ['assertTransition', assertTransition],
    ['isTerminalState', isTerminalState],
    ['isInterruptedState', isInterruptedState],
    ['isFinalOrInterruptedState', isFinalOrInterruptedState],
    ['parseProtocolVersion', parseProtocolVersion],
    ['textPart', textPart],
    ['dataPart', dataPart],
    ['fileUrlPart', fileUrlPart],
    ['fileBytesPart', fileBytesPart],
    ['userMessage', userMessage],
    ['agentMessage', agentMessage],
    ['newArtifact', newArtifact],
    ['nowTimestamp', nowTimestamp],
  ];

  it.each(reExports)('re-exports %s as the same value', (name, value) => {
    expect((index as Record<string, unknown>)[name]).toBe(value);
  });

  it('re-exports a parser that works', () => {
    expect(index.parseMessage('Message', MESSAGE).success).toBe(true);
  });

  it('leaves the encodings to tandem/codecs', () => {
    expect(Object.keys(index)).not.toContain('encodeBase64');
    expect(Object.keys(index)).not.toContain('SseDecoder');
    expect(codecs.encodeBase64).toBe(encodeBase64);
    expect(codecs.decodeBase64).toBe(decodeBase64);
  });

  it.each(['index.ts', 'codecs.ts'])(
    '%s has no node: import anywhere in its import graph',
    (name) => {
      const srcRoot = fileURLToPath(new URL('../../src/', import.meta.url));
      const entry = resolve(srcRoot, name);
      const builtins = new Set(builtinModules);
      const SPECIFIER =
        /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)(['"])([^'"]+)\1/g;
      const seen = new Set<string>();
      const offenders: string[] = [];
      const queue = [entry];
      while (queue.length > 0) {
        const file = queue.pop()!;
        if (seen.has(file)) continue;
        seen.add(file);
        const source = readFileSync(file, 'utf8');
        for (const match of source.matchAll(SPECIFIER)) {
          const specifier = match[2]!;
          const where = relative(srcRoot, file);
          if (specifier.startsWith('node:') || builtins.has(specifier.split('/')[0]!)) {
            offenders.push(`${where} imports ${specifier}`);
          } else if (specifier.startsWith('.')) {
            queue.push(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
          }
        }
      }
      expect(offenders).toEqual([]);
      // The walk reached the protocol layer, so the check above is not vacuous.
      const reached =
        name === 'index.ts'
          ? ['protocol/validation.ts', 'protocol/schemas.ts', 'protocol/errors.ts']
          : ['protocol/base64.ts', 'protocol/sse-decoder.ts', 'protocol/jcs.ts'];
      for (const file of reached) {
        expect(seen.has(resolve(srcRoot, file)), file).toBe(true);
      }
    },
  );
});

describe('oneof violations next to other violations', () => {
  it('reports the oneof of an object that also has a bad field', () => {
    const result = parseMessage('Part', { text: 'a', url: 'b', metadata: [] });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.violations.map((v) => v.field).sort()).toEqual(['Part', 'metadata']);
  });

  it('reports a oneof with two members when one of them is itself invalid', () => {
    const result = parseMessage('StreamResponse', {
      task: {},
      message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'x' }] },
    });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.violations.map((v) => v.field).sort()).toEqual([
      'StreamResponse',
      'task.id',
      'task.status',
    ]);
  });

  it('reports the oneofs of parts nested inside an invalid message', () => {
    const result = parseMessage('SendMessageRequest', {
      message: { role: 'ROLE_USER', parts: [{}, { text: 'ok' }, { text: 'a', raw: 'AA==' }] },
    });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.violations.map((v) => v.field).sort()).toEqual([
      'message.messageId',
      'message.parts[0]',
      'message.parts[2]',
    ]);
  });
});

describe('int32 range messages', () => {
  it('names both bounds when a value exceeds the int32 maximum', () => {
    const result = parseMessage('GetTaskRequest', { id: 't', historyLength: 2147483648 });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.violations).toEqual([
      {
        field: 'historyLength',
        description: 'must be between 0 and 2147483647, got the number 2147483648',
      },
    ]);
  });
});
