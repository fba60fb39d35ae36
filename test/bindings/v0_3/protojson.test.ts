/**
 * The ProtoJSON of the 0.3 proto (HTTP+JSON 0.3 bodies, as the official 0.3 SDKs write them)
 * against the kind-tagged 0.3 JSON: every valid case of the 0.3 fixture corpus
 * (test/fixtures/v0.3) goes kind-tagged → ProtoJSON → kind-tagged unchanged, including what the
 * proto has no field for (part metadata, file names, referenceTaskIds: carried in metadata);
 * and the ProtoJSON written is the proto's (`content`, `ROLE_*`, `TASK_STATE_*`).
 */

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fromJson, toJson, type JsonValue } from '@bufbuild/protobuf';
import { AgentCardSchema } from '../../../src/bindings/grpc/generated/v0_3/a2a_pb.js';
import { cardFromV03, cardWithV03Fields } from '../../../src/bindings/v0_3/translate/v03-card.js';
import {
  cardFromProto,
  cardToProto,
} from '../../../src/bindings/v0_3/translate/v03-protojson-results.js';
import type { AgentCard } from '../../../src/protocol/generated/types.js';
import {
  messageFromProto,
  messageToProto,
  V03_JSON_KEY,
} from '../../../src/bindings/v0_3/translate/v03-protojson-message.js';
import {
  createPushConfigFromBody,
  sendParamsFromBody,
  sendParamsToProto,
  streamEventFromProto,
  streamEventToProto,
  taskFromProto,
  taskToProto,
} from '../../../src/bindings/v0_3/translate/v03-protojson.js';

const DIR = fileURLToPath(new URL('../../fixtures/v0.3/', import.meta.url));

function cases(kind: string): [string, unknown][] {
  return readdirSync(join(DIR, kind))
    .filter((name) => name.endsWith('.json'))
    .map((name) => [name, JSON.parse(readFileSync(join(DIR, kind, name), 'utf8')) as unknown]);
}

const ROUND_TRIPS: Record<string, (value: unknown) => unknown> = {
  Message: (value) => messageFromProto(messageToProto(value)),
  Task: (value) => taskFromProto(taskToProto(value)),
  TaskStatusUpdateEvent: (value) => streamEventFromProto(streamEventToProto(value)),
  TaskArtifactUpdateEvent: (value) => streamEventFromProto(streamEventToProto(value)),
  MessageSendParams: (value) => sendParamsFromBody(sendParamsToProto(value) as never),
};

describe('kind-tagged 0.3 → ProtoJSON → kind-tagged 0.3', () => {
  for (const [kind, roundTrip] of Object.entries(ROUND_TRIPS)) {
    for (const [name, value] of cases(kind)) {
      it(`${kind}/${name}`, () => {
        const back = roundTrip(value) as Record<string, unknown>;
        if (kind === 'MessageSendParams') {
          // Proto3 cannot tell blocking absent from false: ProtoJSON always says it.
          const config = (value as { configuration?: { blocking?: boolean } }).configuration;
          const expected = {
            ...(value as object),
            configuration: { ...config, blocking: config?.blocking ?? true },
          };
          expect(back).toEqual(expected);
        } else {
          // Proto3 writes no false boolean: `append: false` and `lastChunk: false` come back absent.
          const expected = { ...(value as Record<string, unknown>) };
          for (const key of ['append', 'lastChunk'])
            if (expected[key] === false) delete expected[key];
          expect(back).toEqual(expected);
        }
      });
    }
  }
});

describe('the ProtoJSON written', () => {
  it('is the proto: content, ROLE_*, file members, and carries part metadata and names', () => {
    const proto = messageToProto({
      kind: 'message',
      messageId: 'm',
      role: 'user',
      referenceTaskIds: ['t0'],
      parts: [
        { kind: 'text', text: 'hi', metadata: { k: 1 } },
        {
          kind: 'file',
          file: { uri: 'https://x.example/a.png', mimeType: 'image/png', name: 'a' },
        },
        { kind: 'data', data: { n: 1 } },
      ],
    });
    expect(proto).toEqual({
      messageId: 'm',
      role: 'ROLE_USER',
      content: [
        { text: 'hi' },
        { file: { fileWithUri: 'https://x.example/a.png', mimeType: 'image/png' } },
        { data: { data: { n: 1 } } },
      ],
      metadata: {
        [V03_JSON_KEY]: {
          parts: { '0': { metadata: { k: 1 } }, '1': { name: 'a' } },
          referenceTaskIds: ['t0'],
        },
      },
    });
  });

  it('writes states as TASK_STATE_* (canceled as CANCELLED) and final only when true', () => {
    expect(
      streamEventToProto({
        kind: 'status-update',
        taskId: 't',
        contextId: 'c',
        final: true,
        status: { state: 'canceled' },
      }),
    ).toEqual({
      statusUpdate: {
        taskId: 't',
        contextId: 'c',
        final: true,
        status: { state: 'TASK_STATE_CANCELLED' },
      },
    });
  });

  it('reads blocking absent from a ProtoJSON configuration as false, as proto3 does', () => {
    const params = sendParamsFromBody({
      message: { messageId: 'm', role: 'ROLE_USER', content: [{ text: 'x' }] },
      configuration: {},
    });
    expect(params.configuration).toEqual({ blocking: false });
  });

  it('reads the three create-push-config bodies', () => {
    const inner = { url: 'https://x.example/hook', token: 't' };
    const expected = { taskId: 'task', pushNotificationConfig: { ...inner, id: 'c1' } };
    expect(
      createPushConfigFromBody(
        { parent: 'tasks/task', configId: 'c1', config: { pushNotificationConfig: inner } },
        'task',
      ),
    ).toEqual(expected);
    expect(
      createPushConfigFromBody(
        { name: 'tasks/task/pushNotificationConfigs/c1', pushNotificationConfig: inner },
        'task',
      ),
    ).toEqual(expected);
    expect(
      createPushConfigFromBody(
        { taskId: 'task', pushNotificationConfig: { ...inner, id: 'c1' } },
        'task',
      ),
    ).toEqual(expected);
  });
});

describe('the card as the proto AgentCard', () => {
  for (const [name, v03] of cases('AgentCard')) {
    it(`${name}: served card → proto AgentCard (strict) → kind-tagged keeps the 0.3 security`, () => {
      const served = cardWithV03Fields(
        cardFromV03(v03 as Record<string, unknown>) as unknown as AgentCard,
      );
      const proto = fromJson(AgentCardSchema, cardToProto(served) as JsonValue);
      const back = cardFromProto(toJson(AgentCardSchema, proto)) as Record<string, unknown>;
      const original = v03 as Record<string, unknown>;
      expect(back.name).toBe(original.name);
      expect(back.url).toBe(original.url);
      expect(back.securitySchemes).toEqual(original.securitySchemes);
      expect(back.security).toEqual(original.security);
    });
  }
});
