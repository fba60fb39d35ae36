/**
 * The 0.3 fixture corpus (test/fixtures/v0.3, see its README) round-trips 0.3 → 1.0 → 0.3: each
 * valid case translates to a value that validates as its 1.0 message, and back to exactly the
 * case; each untranslatable case fails with every violated field named. Also the rules that are
 * not round trips: 1.0 → 0.3 → 1.0 of what 0.3 cannot hold, `final`, timestamps, errors.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseMessage } from '../../../src/protocol/validation.js';
import type { MessageTypes, Part, StreamResponse } from '../../../src/protocol/generated/types.js';
import { TaskNotFoundError, VersionNotSupportedError } from '../../../src/protocol/errors.js';
import {
  Issues,
  UntranslatableError,
} from '../../../src/bindings/v0_3/translate/untranslatable.js';
import {
  partFromV03,
  partToV03,
  messageFromV03,
  messageToV03,
} from '../../../src/bindings/v0_3/translate/v03-message.js';
import {
  streamEventFromV03,
  streamEventToV03,
  taskFromV03,
  taskToV03,
} from '../../../src/bindings/v0_3/translate/v03-task.js';
import { requestFromV03, requestToV03 } from '../../../src/bindings/v0_3/translate/v03-requests.js';
import { cardFromV03, cardWithV03Fields } from '../../../src/bindings/v0_3/translate/v03-card.js';
import { errorFromV03, errorToV03 } from '../../../src/bindings/v0_3/translate/v03-errors.js';

const DIR = fileURLToPath(new URL('../../fixtures/v0.3/', import.meta.url));

interface Codec {
  /** The 1.0 message the translation must validate as. */
  readonly type: keyof MessageTypes;
  /** The root of violation paths of untranslatable cases. */
  readonly root: string;
  from(value: unknown, issues: Issues): unknown;
  to(value: never): unknown;
}

function strict<T>(what: string, run: (issues: Issues) => T): T {
  const issues = new Issues();
  const value = run(issues);
  issues.check(what);
  return value;
}

/** The 0.3 fields of a card served with both versions' fields (what a 0.3 client reads). */
function v03View(card: Record<string, unknown>): unknown {
  const { supportedInterfaces: _interfaces, securityRequirements: _requirements, ...rest } = card;
  const capabilities = { ...(rest.capabilities as Record<string, unknown>) };
  delete capabilities.extendedAgentCard;
  const schemes = rest.securitySchemes as Record<string, Record<string, unknown>> | undefined;
  return {
    ...rest,
    capabilities,
    ...(schemes === undefined
      ? {}
      : {
          securitySchemes: Object.fromEntries(
            Object.entries(schemes).map(([key, scheme]) => [
              key,
              Object.fromEntries(
                Object.entries(scheme).filter(([k]) => !k.endsWith('SecurityScheme')),
              ),
            ]),
          ),
        }),
    skills: (rest.skills as Record<string, unknown>[]).map(
      ({ securityRequirements: _s, ...skill }) => skill,
    ),
  };
}

const CODECS: Record<string, Codec> = {
  Part: { type: 'Part', root: 'part', from: (v, i) => partFromV03(v, 'part', i), to: partToV03 },
  Message: {
    type: 'Message',
    root: 'message',
    from: (v, i) => messageFromV03(v, 'message', i),
    to: messageToV03,
  },
  Task: { type: 'Task', root: 'task', from: (v, i) => taskFromV03(v, 'task', i), to: taskToV03 },
  TaskStatusUpdateEvent: {
    type: 'StreamResponse',
    root: 'event',
    from: (v, i) => streamEventFromV03(v, 'event', i)?.event,
    to: streamEventToV03,
  },
  TaskArtifactUpdateEvent: {
    type: 'StreamResponse',
    root: 'event',
    from: (v, i) => streamEventFromV03(v, 'event', i)?.event,
    to: streamEventToV03,
  },
  MessageSendParams: {
    type: 'SendMessageRequest',
    root: 'params',
    from: (v) => requestFromV03('message/send', v, ''),
    to: (v) => requestToV03('SendMessage', v),
  },
  TaskPushNotificationConfig: {
    type: 'TaskPushNotificationConfig',
    root: 'params',
    from: (v) => requestFromV03('tasks/pushNotificationConfig/set', v, ''),
    to: (v) => requestToV03('CreateTaskPushNotificationConfig', v),
  },
  AgentCard: {
    type: 'AgentCard',
    root: '',
    from: (v) => cardFromV03(v as Record<string, unknown>),
    to: (v) => v03View(cardWithV03Fields(v) as unknown as Record<string, unknown>),
  },
};

interface Case {
  readonly type: string;
  readonly name: string;
  readonly value: unknown;
}

function cases(kind: 'valid' | 'untranslatable'): Case[] {
  return readdirSync(DIR).flatMap((type) => {
    const dir = kind === 'valid' ? join(DIR, type) : join(DIR, type, 'untranslatable');
    let files: string[];
    try {
      files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    } catch {
      return [];
    }
    return files.map((name) => ({
      type,
      name,
      value: JSON.parse(readFileSync(join(dir, name), 'utf8')) as unknown,
    }));
  });
}

describe('the 0.3 fixture corpus', () => {
  it('has a codec for every type', () => {
    const types = readdirSync(DIR).filter((t) => !t.endsWith('.md'));
    expect(types.filter((t) => !(t in CODECS))).toEqual([]);
    expect(cases('valid').length).toBeGreaterThan(25);
  });

  it.each(cases('valid').map((c) => [`${c.type}/${c.name}`, c] as const))(
    '%s round-trips 0.3 → 1.0 → 0.3',
    (_name, fixture) => {
      const codec = CODECS[fixture.type] as Codec;
      const v1 = strict(fixture.name, (issues) => codec.from(fixture.value, issues));
      const parsed = parseMessage(codec.type, v1);
      expect(parsed.success ? [] : parsed.violations).toEqual([]);
      if (!parsed.success) return;
      expect(codec.to(parsed.value as never)).toEqual(fixture.value);
    },
  );

  it.each(cases('untranslatable').map((c) => [`${c.type}/${c.name}`, c] as const))(
    '%s is refused, naming every field',
    (_name, fixture) => {
      const codec = CODECS[fixture.type] as Codec;
      const { input, violations } = fixture.value as { input: unknown; violations: string[] };
      let error: unknown;
      try {
        strict(fixture.name, (issues) => codec.from(input, issues));
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(UntranslatableError);
      expect((error as UntranslatableError).violations.map((v) => v.field)).toEqual(violations);
    },
  );
});

describe('1.0 → 0.3 → 1.0', () => {
  const parts: Part[] = [
    { text: '# Notes', mediaType: 'text/markdown', filename: 'notes.md' },
    { data: [1, 'two', null] },
    { data: 'a string', mediaType: 'application/json', metadata: { k: 'v' } },
    { data: null },
    { url: 'https://example.com/a.pdf', mediaType: 'application/pdf', filename: 'a.pdf' },
    { raw: 'AAEC', filename: 'bytes.bin' },
  ];

  it.each(parts.map((p) => [JSON.stringify(p), p] as const))(
    'keeps the part %s whole',
    (_name, part) => {
      const v03 = partToV03(part);
      expect(
        parseMessage(
          'Part',
          strict('part', (i) => partFromV03(v03, 'part', i)),
        ),
      ).toEqual({
        success: true,
        value: part,
      });
    },
  );

  it('marks status updates final where the 1.0 stream ends', () => {
    const update = (state: string): StreamResponse =>
      ({ statusUpdate: { taskId: 't', contextId: 'c', status: { state } } }) as StreamResponse;
    const finals = [
      'TASK_STATE_SUBMITTED',
      'TASK_STATE_WORKING',
      'TASK_STATE_INPUT_REQUIRED',
      'TASK_STATE_AUTH_REQUIRED',
      'TASK_STATE_COMPLETED',
      'TASK_STATE_FAILED',
      'TASK_STATE_CANCELED',
      'TASK_STATE_REJECTED',
    ].map((state) => (streamEventToV03(update(state)) as { final: boolean }).final);
    expect(finals).toEqual([false, false, true, true, true, true, true, true]);
  });

  it('writes offset timestamps as UTC with Z', () => {
    const task = strict('task', (i) =>
      taskFromV03(
        {
          kind: 'task',
          id: 't',
          contextId: 'c',
          status: { state: 'working', timestamp: '2025-04-02T18:59:25.331+02:00' },
        },
        'task',
        i,
      ),
    );
    expect(task?.status.timestamp).toBe('2025-04-02T16:59:25.331Z');
  });

  it('maps blocking to returnImmediately and refuses metadata 1.0 cannot carry', () => {
    const request = requestFromV03(
      'message/send',
      {
        message: { kind: 'message', role: 'user', messageId: 'm', parts: [] },
        configuration: { blocking: false },
      },
      'acme',
    );
    expect(request).toMatchObject({ tenant: 'acme', configuration: { returnImmediately: true } });
    expect(() => requestFromV03('tasks/get', { id: 't', metadata: { a: 1 } }, '')).toThrow(
      /params.metadata: A2A 1.0 has no metadata on tasks\/get/,
    );
    expect(requestFromV03('tasks/pushNotificationConfig/get', { id: 'task-1' }, '')).toEqual({
      taskId: 'task-1',
      id: 'task-1',
    });
  });

  it('leaves stateTransitionHistory out of a 0.3 card and keeps one OAuth flow', () => {
    const card = cardFromV03({
      protocolVersion: '0.3.0',
      name: 'A',
      description: 'A',
      url: 'https://a.example/rpc',
      version: '1',
      capabilities: { stateTransitionHistory: true, streaming: true },
      securitySchemes: {
        o: {
          type: 'oauth2',
          flows: {
            implicit: { authorizationUrl: 'https://a.example/auth', scopes: {} },
            authorizationCode: {
              authorizationUrl: 'https://a.example/auth',
              tokenUrl: 'https://a.example/token',
              scopes: {},
            },
          },
        },
      },
      defaultInputModes: [],
      defaultOutputModes: [],
      skills: [],
    });
    expect(card.capabilities).toEqual({ streaming: true });
    expect(card.supportedInterfaces).toEqual([
      { url: 'https://a.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
    const schemes = card.securitySchemes as { o: { oauth2SecurityScheme: { flows: object } } };
    expect(Object.keys(schemes.o.oauth2SecurityScheme.flows)).toEqual(['authorizationCode']);
  });
});

describe('errors', () => {
  it('keep their codes and details both ways', () => {
    const error = new TaskNotFoundError('Task t not found', { metadata: { taskId: 't' } });
    const back = errorFromV03(errorToV03(error));
    expect(back).toBeInstanceOf(TaskNotFoundError);
    expect(back?.metadata).toEqual({ taskId: 't' });
    expect(errorToV03(new VersionNotSupportedError()).code).toBe(-32009);
  });

  it('keep a free-form 0.3 data as one detail', () => {
    const back = errorFromV03({ code: -32001, message: 'nope', data: { taskId: 't' } });
    expect(back).toBeInstanceOf(TaskNotFoundError);
    expect(back?.details).toContainEqual({
      '@type': 'type.googleapis.com/google.protobuf.Value',
      value: { taskId: 't' },
    });
  });
});
