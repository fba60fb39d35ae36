/**
 * `decodeQueryParameters` (spec 11.5): the query string of a GET or DELETE request of the
 * HTTP+JSON binding, decoded by descriptor into the request object that `parseMessage` checks.
 */

import { describe, expect, it } from 'vitest';
import { InvalidParamsError } from '../../src/protocol/errors.js';
import type { FieldViolation } from '../../src/protocol/error-details.js';
import type { MessageTypes } from '../../src/protocol/generated/types.js';
import { decodeQueryParameters } from '../../src/protocol/query-parameters.js';
import { parseMessage, parseMessageOrThrow } from '../../src/protocol/validation.js';

/** The violations of a decode that must fail. */
function violationsOf(type: keyof MessageTypes, query: string): FieldViolation[] {
  try {
    decodeQueryParameters(type, query);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidParamsError);
    return (error as InvalidParamsError).violations;
  }
  throw new Error(`${query} decoded without an error`);
}

describe('ListTasksRequest', () => {
  it('decodes every field type of the spec example', () => {
    const query =
      '?contextId=uuid&status=TASK_STATE_WORKING&pageSize=50&pageToken=cursor' +
      '&historyLength=0&statusTimestampAfter=2025-11-09T10%3A30%3A00Z&includeArtifacts=true';
    const decoded = decodeQueryParameters('ListTasksRequest', query);
    expect(decoded).toStrictEqual({
      contextId: 'uuid',
      status: 'TASK_STATE_WORKING',
      pageSize: 50,
      pageToken: 'cursor',
      historyLength: 0,
      statusTimestampAfter: '2025-11-09T10:30:00Z',
      includeArtifacts: true,
    });
    expect(parseMessageOrThrow('ListTasksRequest', decoded)).toStrictEqual(decoded);
  });

  it('reads proto names as well, and always returns JSON names', () => {
    const params = new URLSearchParams({
      context_id: 'c',
      page_size: '10',
      page_token: 't',
      history_length: '2',
      status_timestamp_after: '2025-11-09T10:30:00.000Z',
      include_artifacts: 'false',
    });
    expect(decodeQueryParameters('ListTasksRequest', params)).toStrictEqual({
      contextId: 'c',
      pageSize: 10,
      pageToken: 't',
      historyLength: 2,
      statusTimestampAfter: '2025-11-09T10:30:00.000Z',
      includeArtifacts: false,
    });
  });

  it('takes strings as they are, percent-decoded, commas and spaces included', () => {
    expect(
      decodeQueryParameters('ListTasksRequest', 'pageToken=a%2Cb+c%3D%3D&contextId=&tenant=%C3%A9'),
    ).toStrictEqual({ pageToken: 'a,b c==', contextId: '', tenant: 'é' });
  });

  it.each([
    ['ten', 'must be an integer, got "ten"'],
    ['1.5', 'must be an integer, got "1.5"'],
    ['1e3', 'must be an integer, got "1e3"'],
    ['0x10', 'must be an integer, got "0x10"'],
    ['+5', 'must be an integer, got "+5"'],
    [' 5', 'must be an integer, got " 5"'],
    ['', 'must be an integer, got ""'],
    ['2147483648', 'must be an integer between -2147483648 and 2147483647, got "2147483648"'],
    ['-2147483649', 'must be an integer between -2147483648 and 2147483647, got "-2147483649"'],
  ])('rejects pageSize=%j', (text, description) => {
    const query = new URLSearchParams({ pageSize: text }).toString();
    expect(violationsOf('ListTasksRequest', query)).toEqual([{ field: 'pageSize', description }]);
  });

  it('accepts the int32 bounds and leaves the field rules to the validator', () => {
    expect(
      decodeQueryParameters('ListTasksRequest', 'pageSize=2147483647&historyLength=-2147483648'),
    ).toStrictEqual({ pageSize: 2147483647, historyLength: -2147483648 });
    const result = parseMessage(
      'ListTasksRequest',
      decodeQueryParameters('ListTasksRequest', 'pageSize=101'),
    );
    expect(result.success ? [] : result.violations).toEqual([
      { field: 'pageSize', description: 'must be between 1 and 100, got the number 101' },
    ]);
  });

  it.each(['TRUE', 'True', '1', 'yes', ''])('rejects includeArtifacts=%j', (text) => {
    expect(violationsOf('ListTasksRequest', `includeArtifacts=${text}`)).toEqual([
      { field: 'includeArtifacts', description: `must be true or false, got "${text}"` },
    ]);
  });

  it('leaves enum names and timestamps to the validator, which rejects bad ones', () => {
    const decoded = decodeQueryParameters(
      'ListTasksRequest',
      'status=working&statusTimestampAfter=2025-11-09',
    );
    expect(decoded).toStrictEqual({ status: 'working', statusTimestampAfter: '2025-11-09' });
    const result = parseMessage('ListTasksRequest', decoded);
    expect(result.success ? [] : result.violations.map((v) => v.field)).toEqual([
      'status',
      'statusTimestampAfter',
    ]);
  });

  it('reports every invalid parameter at once, named as given', () => {
    expect(
      violationsOf('ListTasksRequest', 'page_size=ten&includeArtifacts=maybe&historyLength=1.5'),
    ).toEqual([
      { field: 'page_size', description: 'must be an integer, got "ten"' },
      { field: 'includeArtifacts', description: 'must be true or false, got "maybe"' },
      { field: 'historyLength', description: 'must be an integer, got "1.5"' },
    ]);
  });

  it('rejects a field given under both names, naming it', () => {
    expect(violationsOf('ListTasksRequest', 'pageSize=5&page_size=5')).toEqual([
      { field: 'pageSize', description: 'given twice, as pageSize and page_size' },
    ]);
  });

  it('rejects a field that is not repeated given more than once', () => {
    expect(
      violationsOf('ListTasksRequest', 'status=TASK_STATE_WORKING&status=TASK_STATE_FAILED'),
    ).toEqual([{ field: 'status', description: 'must be given once, got 2 values' }]);
  });

  it('ignores unknown parameters and the A2A-Version service parameter in any case', () => {
    expect(
      decodeQueryParameters(
        'ListTasksRequest',
        'A2A-Version=1.0&a2a-version=1.0&A2A-VERSION=x&cursor=1&limit=ten&pageSize=3',
      ),
    ).toStrictEqual({ pageSize: 3 });
  });

  it('accepts an empty query and a leading question mark', () => {
    expect(decodeQueryParameters('ListTasksRequest', '')).toStrictEqual({});
    expect(decodeQueryParameters('ListTasksRequest', '?')).toStrictEqual({});
    expect(decodeQueryParameters('ListTasksRequest', new URLSearchParams())).toStrictEqual({});
  });
});

describe('GetTaskRequest and SubscribeToTaskRequest', () => {
  it('GetTask decodes historyLength under either name; the path adds the id', () => {
    expect(decodeQueryParameters('GetTaskRequest', 'historyLength=10')).toStrictEqual({
      historyLength: 10,
    });
    const decoded = decodeQueryParameters('GetTaskRequest', 'history_length=1&tenant=acme');
    expect(parseMessageOrThrow('GetTaskRequest', { ...decoded, id: 'task-1' })).toStrictEqual({
      id: 'task-1',
      historyLength: 1,
      tenant: 'acme',
    });
    expect(violationsOf('GetTaskRequest', 'historyLength=-1.0')).toEqual([
      { field: 'historyLength', description: 'must be an integer, got "-1.0"' },
    ]);
  });

  it('SubscribeToTask takes tenant and id as strings', () => {
    expect(decodeQueryParameters('SubscribeToTaskRequest', 'tenant=t&id=x')).toStrictEqual({
      tenant: 't',
      id: 'x',
    });
  });
});

describe('push notification config requests', () => {
  it('ListTaskPushNotificationConfigs decodes its paging under either name', () => {
    expect(
      decodeQueryParameters(
        'ListTaskPushNotificationConfigsRequest',
        'page_size=20&pageToken=abc&task_id=t-1',
      ),
    ).toStrictEqual({ pageSize: 20, pageToken: 'abc', taskId: 't-1' });
    expect(violationsOf('ListTaskPushNotificationConfigsRequest', 'pageSize=lots')).toEqual([
      { field: 'pageSize', description: 'must be an integer, got "lots"' },
    ]);
  });

  it.each([
    'GetTaskPushNotificationConfigRequest',
    'DeleteTaskPushNotificationConfigRequest',
  ] as const)('%s takes tenant, taskId and id, and rejects taskId given twice', (type) => {
    expect(decodeQueryParameters(type, 'tenant=a&taskId=t&id=p')).toStrictEqual({
      tenant: 'a',
      taskId: 't',
      id: 'p',
    });
    expect(violationsOf(type, 'taskId=t&task_id=t')).toEqual([
      { field: 'taskId', description: 'given twice, as taskId and task_id' },
    ]);
  });
});

describe('GetExtendedAgentCardRequest', () => {
  it('takes the tenant and ignores everything else', () => {
    expect(decodeQueryParameters('GetExtendedAgentCardRequest', 'tenant=acme&x=1')).toStrictEqual({
      tenant: 'acme',
    });
  });
});

describe('fields a query string cannot hold, and repeated fields', () => {
  it('rejects a parameter naming a message, Struct or map field', () => {
    expect(
      violationsOf(
        'SendMessageRequest',
        'message=hi&configuration.historyLength=1&configuration=x&metadata=%7B%7D',
      ),
    ).toEqual([
      {
        field: 'message',
        description: 'is an object, which a query parameter cannot hold; send it in a POST body',
      },
      {
        field: 'configuration',
        description: 'is an object, which a query parameter cannot hold; send it in a POST body',
      },
      {
        field: 'metadata',
        description: 'is an object, which a query parameter cannot hold; send it in a POST body',
      },
    ]);
    expect(violationsOf('AuthorizationCodeOAuthFlow', 'scopes=a')).toEqual([
      {
        field: 'scopes',
        description: 'is a map, which a query parameter cannot hold; send it in a POST body',
      },
    ]);
  });

  it('reads a repeated field from repeated parameters and from commas, in order', () => {
    expect(
      decodeQueryParameters(
        'SendMessageConfiguration',
        'acceptedOutputModes=text/plain,application/json&historyLength=3&acceptedOutputModes=image/png',
      ),
    ).toStrictEqual({
      acceptedOutputModes: ['text/plain', 'application/json', 'image/png'],
      historyLength: 3,
    });
    expect(
      decodeQueryParameters('Message', 'reference_task_ids=t-1&reference_task_ids=t-2'),
    ).toStrictEqual({ referenceTaskIds: ['t-1', 't-2'] });
    expect(violationsOf('Message', 'extensions=a&referenceTaskIds=x&reference_task_ids=y')).toEqual(
      [
        {
          field: 'referenceTaskIds',
          description: 'given twice, as referenceTaskIds and reference_task_ids',
        },
      ],
    );
  });
});
