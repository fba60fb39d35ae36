/**
 * Credentials never reach the page: the mask by header name and by value (as is, URL-encoded,
 * JSON-escaped), and the commands to copy, which name the environment variables instead.
 */

import { describe, expect, it } from 'vitest';
import { createCredentialMask, MASK } from '../../src/inspector/credential-mask.js';
import { curlCommand, shellQuote, tandemCommand } from '../../src/inspector/wire-commands.js';

const TOKEN = 'sk-live-0123456789';
const KEY = 'key with/odd=chars&';

describe('the credential mask', () => {
  const mask = createCredentialMask({
    secrets: [TOKEN, KEY, 'abc'],
    headerNames: ['X-Custom-Key'],
  });

  it('masks credential headers by name, keeping the scheme of Authorization', () => {
    expect(
      mask.headers([
        ['authorization', `Bearer ${TOKEN}`],
        ['Cookie', 'session=1'],
        ['x-api-key', 'whatever'],
        ['x-custom-key', 'v'],
        ['x-a2a-notification-token', 't'],
        ['content-type', 'application/json'],
      ]),
    ).toEqual([
      ['authorization', `Bearer ${MASK}`],
      ['Cookie', MASK],
      ['x-api-key', MASK],
      ['x-custom-key', MASK],
      ['x-a2a-notification-token', MASK],
      ['content-type', 'application/json'],
    ]);
  });

  it('masks each secret by value anywhere: URLs, bodies, other headers', () => {
    expect(mask.text(`http://agent/a2a?key=${encodeURIComponent(KEY)}`)).toBe(
      `http://agent/a2a?key=${MASK}`,
    );
    expect(mask.text(JSON.stringify({ token: TOKEN, note: KEY }))).toBe(
      JSON.stringify({ token: MASK, note: MASK }),
    );
    expect(mask.header('x-forwarded', `for ${TOKEN}`)).toBe(`for ${MASK}`);
  });

  it('leaves short values alone, which would hide ordinary text', () => {
    expect(mask.text('abc def')).toBe('abc def');
  });

  it('masks a secret added later (a push token handed out)', () => {
    const later = createCredentialMask();
    expect(later.text('push-token-xyz')).toBe('push-token-xyz');
    later.addSecret('push-token-xyz');
    expect(later.text('{"token":"push-token-xyz"}')).toBe(`{"token":"${MASK}"}`);
  });
});

describe('the commands to copy', () => {
  const placeholders = [
    { secret: TOKEN, variable: 'TANDEM_TOKEN' },
    { secret: KEY, variable: 'TANDEM_API_KEY' },
  ];

  it('quotes for a POSIX shell, with placeholders left to expand', () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(shellQuote('plain-word')).toBe('plain-word');
    expect(shellQuote(`Authorization: Bearer ${TOKEN}`, placeholders)).toBe(
      `'Authorization: Bearer '"$TANDEM_TOKEN"`,
    );
  });

  it('writes curl with every credential as its variable', () => {
    const curl = curlCommand(
      {
        method: 'POST',
        url: `http://agent/a2a?k=${KEY}`,
        headers: [
          ['authorization', `Bearer ${TOKEN}`],
          ['content-type', 'application/json'],
          ['content-length', '12'],
        ],
        body: '{"a":"b"}',
        streaming: true,
      },
      placeholders,
    );
    expect(curl).toBe(
      `curl -sS -N -X POST 'http://agent/a2a?k='"$TANDEM_API_KEY" ` +
        `-H 'authorization: Bearer '"$TANDEM_TOKEN" -H 'content-type: application/json' ` +
        `--data-raw '{"a":"b"}'`,
    );
    expect(curl).not.toContain(TOKEN);
  });

  it('writes the tandem command of the operations it has, and none for the others', () => {
    const context = {
      agentUrl: 'http://agent',
      binding: 'HTTP+JSON' as const,
      headers: [['X-Team', 'blue'] as const],
      placeholders,
    };
    expect(
      tandemCommand(
        'SendMessage',
        { message: { parts: [{ text: 'roll 2d6' }], taskId: 't1', contextId: 'c1' } },
        context,
      ),
    ).toBe(
      "tandem send http://agent --task t1 --context c1 --binding rest --header 'X-Team: blue' -- 'roll 2d6'",
    );
    expect(
      tandemCommand('ListTasks', { status: 'TASK_STATE_INPUT_REQUIRED', pageSize: 5 }, context),
    ).toBe(
      "tandem tasks http://agent --status input-required --limit 5 --binding rest --header 'X-Team: blue'",
    );
    expect(
      tandemCommand('CancelTask', { id: 't9' }, { ...context, headers: [], binding: 'auto' }),
    ).toBe('tandem cancel http://agent t9');
    expect(
      tandemCommand('SendMessage', { message: { parts: [{ data: {} }] } }, context),
    ).toBeNull();
    expect(tandemCommand('CreateTaskPushNotificationConfig', {}, context)).toBeNull();
  });
});
