/**
 * The README walkthrough, as child processes: `tandem serve` with dice and translator, another
 * with an orchestrator of both, talked to with `tandem chat` — routing, the dice agent's question
 * answered through the orchestrator, the list of skills when nothing fits — and the
 * orchestrator's usage errors.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/cli-harness.js';
import { requireBuild, SERVE_URL_LINE, serverProcesses } from '../../support/processes.js';

const processes = serverProcesses();
let base = '';

beforeAll(() => {
  requireBuild();
});

afterAll(() => processes.killAll());

describe('tandem serve --agent orchestrator', () => {
  it('serves the walkthrough: tandem chat through the orchestrator to dice and translator', async () => {
    const agents = await processes.start(
      [
        'dist/cli/main.cjs',
        'serve',
        '--agent',
        'dice',
        '--agent',
        'translator',
        '--store',
        'memory',
        '--port',
        '0',
      ],
      SERVE_URL_LINE,
    );
    const served = await processes.start(
      [
        'dist/cli/main.cjs',
        'serve',
        '--agent',
        'orchestrator',
        '--peer',
        `${agents.url}/agents/dice`,
        '--peer',
        `${agents.url}/agents/translator`,
        '--store',
        'memory',
        '--port',
        '0',
      ],
      SERVE_URL_LINE,
    );
    base = served.url;
    const { code, stdout, stderr } = await runCli(['chat', base], {
      input: 'roll banana\n3d8\nGood morning! How are you?\nwhat is the weather?\n',
    });
    expect(stderr).toMatch(/^Chatting with Orchestrator\./);
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /you> roll banana\n[^]*What should I roll\?[^]*\nyou> 3d8\n[^]*Rolled 3d8: /,
    );
    expect(stdout).toMatch(/you> Good morning! How are you\?\n[^]*\p{Script=Han}/u);
    expect(stdout).toMatch(/you> what is the weather\?\n[^]*- Dice: Roll dice/);
  });

  it('refuses to start without peers, or with a peer that is not a URL', async () => {
    const none = await runCli(['serve', '--agent', 'orchestrator', '--store', 'memory']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--agent orchestrator needs its peers: --peer');
    const bad = await runCli([
      'serve',
      '--agent',
      'orchestrator',
      '--peer',
      'dice',
      '--store',
      'memory',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--peer must be an absolute http(s) URL, got "dice"');
    const stray = await runCli([
      'serve',
      '--agent',
      'dice',
      '--peer',
      'http://x',
      '--store',
      'memory',
    ]);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain(
      '--peer and --peer-caller-ref are settings of --agent orchestrator',
    );
    const model = await runCli([
      'serve',
      '--agent',
      'dice',
      '--model-url',
      'http://x/v1',
      '--store',
      'memory',
    ]);
    expect(model.code).toBe(2);
    expect(model.stderr).toContain('--model-url is a setting of --agent chat');
  });
});
