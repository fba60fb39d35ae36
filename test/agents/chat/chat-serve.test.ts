/**
 * `tandem serve --agent chat` as a child process in front of the fake model server: the history
 * of a context survives a restart on SQLite, the key is taken from the environment and shows
 * nowhere (command line, card, logs, errors), and bad settings are refused with clear messages.
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCardResolver, createClient, type Task } from '../../../src/client.js';
import { runCli } from '../../cli/cli-harness.js';
import { requireBuild, SERVE_URL_LINE, serverProcesses } from '../../support/processes.js';
import { tempDir } from '../../support/stores.js';
import { setEnv } from '../agent-harness.js';
import { startFakeModelServer, type FakeModelServer } from './fake-model-server.js';

const KEY = 'sk-serve-test-9876543210';

let model: FakeModelServer;
let dir: { path: string; remove: () => Promise<void> };
let restoreEnv: () => void;
const processes = serverProcesses();

beforeAll(async () => {
  requireBuild();
  model = await startFakeModelServer();
  dir = await tempDir();
  restoreEnv = setEnv({ TANDEM_MODEL_API_KEY: KEY });
});

afterAll(async () => {
  restoreEnv();
  await model.close();
  await dir.remove();
});

function answerOf(task: Task): string {
  return (task.artifacts ?? []).flatMap((a) => a.parts.map((p) => p.text ?? '')).join('');
}

describe('tandem serve --agent chat', () => {
  it('keeps a context’s conversation across a restart on SQLite, the key shown nowhere', async () => {
    const args = [
      'dist/cli/main.cjs',
      'serve',
      '--agent',
      'chat',
      '--model-url',
      model.baseUrl,
      '--model',
      'm',
      '--system-prompt',
      'Be brief.',
      '--store',
      `sqlite:${join(dir.path, 'chat.db')}`,
      '--port',
      '0',
      '--log-level',
      'debug',
    ];
    const first = await processes.start(args, SERVE_URL_LINE);
    const cmdline = readFileSync(`/proc/${first.process.pid}/cmdline`, 'utf8');
    expect(cmdline).not.toContain(KEY);
    let client = await createClient(first.url, { cardResolver: createCardResolver() });
    expect(JSON.stringify(client.card)).not.toContain(KEY);
    const talk = client.conversation();
    expect(answerOf((await talk.send('one')) as Task)).toBe('echo: one (turns 0)');
    const failed = (await talk.send('status 401')) as Task;
    expect(failed.status.state).toBe('TASK_STATE_FAILED');
    expect(JSON.stringify(failed)).not.toContain(KEY);
    // The server's log has the failure at warn, with the task id and the task's reason.
    const warned = await first.process.line(/chat agent: the model call failed/);
    expect(JSON.parse(warned.input ?? '{}')).toMatchObject({
      level: 40,
      taskId: failed.id,
      reason: expect.stringMatching(
        /^The model server refused the request \(HTTP 401\)/,
      ) as unknown,
    });
    expect(await first.process.terminate()).toBe(0);
    expect(first.process.lines.join('\n') + first.process.stderr).not.toContain(KEY);

    const second = await processes.start(args, SERVE_URL_LINE);
    client = await createClient(second.url, { cardResolver: createCardResolver() });
    const next = model.requests.length;
    const again = client.conversation({ contextId: talk.contextId as string });
    expect(answerOf((await again.send('two')) as Task)).toBe('echo: two (turns 1)');
    expect(model.requests[next]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(model.requests[next]?.body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'echo: one (turns 0)' },
      { role: 'user', content: 'two' },
    ]);
    // Another context on the same store starts empty.
    expect(answerOf((await client.send('three')) as Task)).toBe('echo: three (turns 0)');
    expect(await second.process.terminate()).toBe(0);
    expect(second.process.lines.join('\n') + second.process.stderr).not.toContain(KEY);
  });

  it('reads its settings from --config, the flags over them', async () => {
    const config = join(dir.path, 'chat.json');
    writeFileSync(
      config,
      JSON.stringify({
        modelUrl: model.baseUrl,
        model: 'from-file',
        name: 'Helper',
        description: 'Helps',
        temperature: 0.5,
        images: true,
        skills: [{ id: 'help', name: 'Help', description: 'Helps out', tags: ['help'] }],
      }),
    );
    const served = await processes.start(
      [
        'dist/cli/main.cjs',
        'serve',
        '--agent',
        'chat',
        '--config',
        config,
        '--model',
        'm2',
        '--store',
        'memory',
        '--port',
        '0',
      ],
      SERVE_URL_LINE,
    );
    const client = await createClient(served.url, { cardResolver: createCardResolver() });
    expect(client.card.name).toBe('Helper');
    expect(client.card.skills.map((s) => s.id)).toEqual(['help']);
    expect(client.card.defaultInputModes).toContain('image/png');
    const next = model.requests.length;
    await client.send('hi');
    expect(model.requests[next]?.body).toMatchObject({ model: 'm2', temperature: 0.5 });
  });

  it('refuses missing or invalid settings with a message naming them', async () => {
    const missing = await runCli(['serve', '--agent', 'chat', '--store', 'memory']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--model-url');

    const bad = join(dir.path, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify({ apiKey: 'sk-nope', temperature: 'hot', history: { maxTurns: -1 } }),
    );
    const invalid = await runCli([
      'serve',
      '--agent',
      'chat',
      '--config',
      bad,
      '--store',
      'memory',
    ]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain(`--config ${bad} is not a valid chat configuration`);
    expect(invalid.stderr).toContain(
      'apiKey: the API key is read from the environment variable TANDEM_MODEL_API_KEY',
    );
    expect(invalid.stderr).toContain('temperature: must be a number');
    expect(invalid.stderr).toContain('history.maxTurns: must be at least 0');
    expect(invalid.stderr).not.toContain('sk-nope');

    const url = await runCli(['serve', '--agent', 'chat', '--model-url', 'nope', '--model', 'm']);
    expect(url.code).toBe(2);
    expect(url.stderr).toContain('--model-url must be an absolute http(s) URL');

    const temperature = await runCli([
      'serve',
      '--agent',
      'chat',
      '--model-url',
      model.baseUrl,
      '--model',
      'm',
      '--temperature',
      '9',
    ]);
    expect(temperature.code).toBe(2);
    expect(temperature.stderr).toContain('--temperature must be a number between 0 and 2');
  });
});
