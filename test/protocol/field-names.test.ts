/**
 * ProtoJSON's two spellings of a field (field-names.ts): `parseMessage` reads proto names
 * (`history_length`) as well as JSON names at every depth, returns JSON names only, reports a
 * field given under both names with its path, and names violations as the input spelled them.
 */

import { describe, expect, it } from 'vitest';
import { messageDescriptors } from '../../src/protocol/generated/descriptors.js';
import { usesProtoNames } from '../../src/protocol/generated/proto-names.js';
import { parseMessage, parseMessageOrThrow } from '../../src/protocol/validation.js';

const MESSAGE = { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] };

function violationsOf(result: ReturnType<typeof parseMessage>): unknown {
  return result.success ? [] : result.violations;
}

describe('proto field names', () => {
  it('are read at every depth and come out as JSON names', () => {
    const input = {
      message: {
        message_id: 'm-1',
        context_id: 'ctx-1',
        role: 'ROLE_USER',
        parts: [{ text: 'hi', media_type: 'text/plain' }],
        reference_task_ids: ['t-0'],
      },
      configuration: {
        history_length: 1,
        task_push_notification_config: { task_id: 't-1', url: 'https://client.example.com/h' },
      },
    };
    const before = JSON.stringify(input);
    expect(parseMessageOrThrow('SendMessageRequest', input)).toStrictEqual({
      message: {
        messageId: 'm-1',
        contextId: 'ctx-1',
        role: 'ROLE_USER',
        parts: [{ text: 'hi', mediaType: 'text/plain' }],
        referenceTaskIds: ['t-0'],
      },
      configuration: {
        historyLength: 1,
        taskPushNotificationConfig: { taskId: 't-1', url: 'https://client.example.com/h' },
      },
    });
    expect(JSON.stringify(input), 'the input is not modified').toBe(before);
  });

  it('count as set for required fields and oneofs', () => {
    const event = parseMessageOrThrow('StreamResponse', {
      artifact_update: {
        task_id: 't',
        context_id: 'c',
        artifact: { artifact_id: 'a', parts: [{ text: 'x' }] },
        last_chunk: true,
      },
    });
    expect(event).toStrictEqual({
      artifactUpdate: {
        taskId: 't',
        contextId: 'c',
        artifact: { artifactId: 'a', parts: [{ text: 'x' }] },
        lastChunk: true,
      },
    });
  });

  it('with null mean unset, as JSON names do', () => {
    expect(parseMessageOrThrow('GetTaskRequest', { id: 't', history_length: null })).toStrictEqual({
      id: 't',
    });
  });

  it('never let a __proto__ key of the input supply a field', () => {
    const input: unknown = JSON.parse(
      '{"message_id": "m-1", "parts": [{"text": "hi"}], "__proto__": {"role": "ROLE_USER"}}',
    );
    const result = parseMessage('Message', input);
    expect(violationsOf(result)).toEqual([{ field: 'role', description: 'is required' }]);
  });

  it('are not looked for inside Struct and Value, which are data', () => {
    const parsed = parseMessageOrThrow('Part', {
      data: { media_type: 'kept' },
      metadata: { context_id: 'kept' },
    });
    expect(parsed).toStrictEqual({
      data: { media_type: 'kept' },
      metadata: { context_id: 'kept' },
    });
  });

  it('are each seen by the generated check of their message, and JSON names are not', () => {
    for (const message of Object.values(messageDescriptors)) {
      const check = usesProtoNames[message.name];
      const aliased = message.fields.filter((f) => f.protoName !== f.name);
      expect(check === undefined, message.name).toBe(aliased.length === 0);
      if (check === undefined) continue;
      const camel = Object.fromEntries(message.fields.map((f) => [f.name, 1]));
      expect(check(camel), message.name).toBe(false);
      for (const field of aliased) {
        expect(check({ [field.protoName]: 1 }), `${message.name}.${field.protoName}`).toBe(true);
        expect(check({ [field.protoName]: undefined }), field.protoName).toBe(false);
      }
    }
  });

  it('never collide with another field of the same message', () => {
    for (const message of Object.values(messageDescriptors)) {
      const names: string[] = message.fields.map((f) => f.name);
      const collisions = message.fields.filter(
        (f) => f.protoName !== f.name && names.includes(f.protoName),
      );
      expect(collisions, message.name).toEqual([]);
    }
  });
});

describe('a field given under both names', () => {
  it('is an error naming the field and both spellings, at the root', () => {
    const result = parseMessage('GetTaskRequest', { id: 't', historyLength: 1, history_length: 1 });
    expect(violationsOf(result)).toEqual([
      { field: 'historyLength', description: 'given twice, as historyLength and history_length' },
    ]);
  });

  it('is reported below the root option, with the other violations of the same object', () => {
    const result = parseMessage(
      'SendMessageRequest',
      {
        message: MESSAGE,
        configuration: { history_length: 1, historyLength: 2, return_immediately: 'yes' },
      },
      { root: 'params' },
    );
    expect(violationsOf(result)).toEqual([
      {
        field: 'configuration.historyLength',
        description: 'given twice, as historyLength and history_length',
      },
      {
        field: 'configuration.return_immediately',
        description: 'must be true or false, got "yes"',
      },
    ]);
  });

  it('is reported in repeated messages, parents first', () => {
    const result = parseMessage('ListTasksResponse', {
      tasks: [
        { id: 'a', status: { state: 'TASK_STATE_WORKING' } },
        { id: 'b', contextId: 'c', context_id: 'c', status: { state: 'TASK_STATE_WORKING' } },
      ],
      nextPageToken: '',
      page_size: 2,
      pageSize: 2,
      totalSize: 2,
    });
    expect(violationsOf(result)).toEqual([
      { field: 'pageSize', description: 'given twice, as pageSize and page_size' },
      { field: 'tasks[1].contextId', description: 'given twice, as contextId and context_id' },
    ]);
  });

  it('is reported in oneof members', () => {
    const result = parseMessage('SecurityScheme', {
      oauth2SecurityScheme: {
        flows: {
          authorizationCode: {
            authorizationUrl: 'https://a',
            authorization_url: 'https://a',
            tokenUrl: 'https://t',
            scopes: {},
          },
        },
      },
    });
    expect(violationsOf(result)).toEqual([
      {
        field: 'oauth2SecurityScheme.flows.authorizationCode.authorizationUrl',
        description: 'given twice, as authorizationUrl and authorization_url',
      },
    ]);
  });

  it('fails parseMessageOrThrow with an InvalidParamsError carrying the violation', () => {
    expect(() =>
      parseMessageOrThrow(
        'Message',
        { ...MESSAGE, task_id: 't', taskId: 't' },
        { root: 'message' },
      ),
    ).toThrow('Invalid parameters: taskId: given twice, as taskId and task_id');
  });
});

describe('violations of proto-named fields', () => {
  it('name the field as the input spelled it', () => {
    const result = parseMessage('ListTasksRequest', {
      page_size: 'ten',
      status_timestamp_after: 'yesterday',
      includeArtifacts: 1,
    });
    expect(violationsOf(result)).toEqual([
      { field: 'page_size', description: 'must be a number, got "ten"' },
      {
        field: 'status_timestamp_after',
        description:
          'must be an ISO-8601 UTC timestamp such as "2025-10-28T10:30:00.000Z", got "yesterday"',
      },
      { field: 'includeArtifacts', description: 'must be true or false, got the number 1' },
    ]);
  });

  it('keep JSON names for missing required fields, which were spelled neither way', () => {
    const result = parseMessage('Message', { role: 'ROLE_USER', parts: [{ media_type: 'x' }] });
    expect(violationsOf(result)).toEqual([
      { field: 'messageId', description: 'is required' },
      {
        field: 'parts[0]',
        description: 'must set exactly one of text, raw, url, data (content); none is set',
      },
    ]);
  });
});
