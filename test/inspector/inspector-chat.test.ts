/**
 * The inspector in a real browser against real agents: `tandem serve` (dice, echo) and the
 * gallery agent on loopback, `tandem inspect` as a child process, Debian's Chromium driving the
 * page. Connect and the card, chat (plain, streamed chunk by chunk, multi-turn, files and data,
 * artifacts by media type, cancel), tasks, push, the wire, events with resume, a reload, and the
 * error state with the CLI's own message. Every page fails its test on a console or page error.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild, type ServerProcess } from '../support/processes.js';
import { runCli } from '../cli/cli-harness.js';
import { unreachableUrl } from '../cli/cli-server.js';
import {
  connect,
  hasChromium,
  launchBrowser,
  NO_CHROMIUM,
  inspectorPages,
  screenshot,
  sendText,
  startInspector,
  startServe,
  type InspectorProcess,
  type TestBrowser,
} from './browser-harness.js';
import { startGallery, type GalleryServer } from './gallery-agent.js';

describe.skipIf(!hasChromium)(
  `the inspector in Chromium${hasChromium ? '' : ` (${NO_CHROMIUM})`}`,
  () => {
    let browser: TestBrowser;
    let serve: { url: string; process: ServerProcess };
    let inspector: InspectorProcess;
    let gallery: GalleryServer;
    const dice = (): string => `${serve.url}/agents/dice`;
    const echo = (): string => `${serve.url}/agents/echo`;

    beforeAll(async () => {
      requireBuild();
      [browser, serve, inspector, gallery] = await Promise.all([
        launchBrowser(),
        startServe(['--agent', 'dice', '--agent', 'echo', '--push-allow', '127.0.0.1']),
        startInspector(),
        startGallery(),
      ]);
    });

    afterAll(async () => {
      await Promise.all([
        browser?.close(),
        inspector?.stop(),
        serve?.process.terminate(),
        gallery?.close(),
      ]);
    });

    const page = inspectorPages(
      () => browser,
      () => inspector.url,
    );

    it('connects and shows the card: skills with clickable examples, interfaces, raw JSON', async () => {
      const { page: p } = await page();
      await connect(p, dice());
      await expect(p.textContent('[data-testid=card-name]')).resolves.toBe('Dice');
      await expect(p.textContent('tr.selected')).resolves.toContain('JSONRPC');
      await expect(p.textContent('[data-testid=signature]')).resolves.toBe('Not signed.');
      await expect(p.textContent('.json-tree[aria-label="raw card"]')).resolves.toContain(
        'supportedInterfaces',
      );
      await screenshot(p, 'card');
      await p.click('button.prompt >> nth=0');
      await p.waitForSelector('#tab-chat[aria-selected=true]');
      expect(await p.inputValue('#composer-text')).not.toBe('');
    });

    it('sends text and shows the answer (not streamed)', async () => {
      const { page: p } = await page();
      await connect(p, echo());
      await p.click('#tab-chat');
      await p.uncheck('input[name=stream]');
      await sendText(p, 'echo hello inspector');
      const turn = p.locator('[data-testid=turn]').last();
      await expect(turn.locator('.artifact').textContent()).resolves.toContain('hello inspector');
      await expect(turn.locator('.states').textContent()).resolves.toContain('completed');
    });

    it('renders a streamed answer chunk by chunk while it arrives', async () => {
      const { page: p } = await page();
      await connect(p, echo());
      await p.click('#tab-chat');
      await p.fill('#composer-text', 'slowstream 4 150 3');
      await p.press('#composer-text', 'Enter');
      // Part of the artifact is on screen while the turn is still running.
      await p.locator('[data-testid=turn][aria-busy=true] .artifact pre').first().waitFor();
      await p.waitForSelector('[data-testid=turn]:last-child[aria-busy=false]');
      const turn = p.locator('[data-testid=turn]').last();
      expect((await turn.locator('.artifact pre').allTextContents()).join('').length).toBe(12);
      await expect(turn.locator('.states').textContent()).resolves.toMatch(/working.*completed/);
      await screenshot(p, 'chat-streamed');
      await p.click('#tab-events');
      const rows = p.locator('[data-testid=event-row].event-artifactUpdate');
      expect(await rows.count()).toBe(4);
      // Each event shows the id the agent gave it.
      expect(await rows.first().locator('td:nth-child(3)').textContent()).toMatch(/^\d+$/);
    });

    it('continues the task that asked for input (dice), then starts a new context', async () => {
      const { page: p } = await page();
      await connect(p, dice());
      await sendText(p, 'roll banana');
      await expect(p.textContent('[data-testid=turn]:last-child .states')).resolves.toContain(
        'input required',
      );
      await p.waitForSelector('[data-testid=continuing]');
      await sendText(p, '2d6');
      const ids = await p.locator('[data-testid=task-id]').allTextContents();
      expect(ids).toHaveLength(2);
      expect(ids[0]).toBe(ids[1]);
      await expect(p.textContent('[data-testid=turn]:last-child .artifact')).resolves.toMatch(
        /Rolled 2d6/,
      );
      await screenshot(p, 'chat');
      await p.click('text=New context');
      expect(await p.locator('[data-testid=turn]').count()).toBe(0);
      await expect(p.textContent('.chat-view')).resolves.toContain('New conversation');
    });

    it('sends a file part and a data part, and refuses data that is not JSON', async () => {
      const { page: p } = await page();
      await connect(p, `${gallery.url}/gallery`);
      await p.click('#tab-chat');
      await p.click('details.attachments summary');
      await p.setInputFiles('input[name=files]', {
        name: 'hello.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('hello'),
      });
      await p.waitForSelector('.attachment');
      await p.fill('textarea[name=data]', '{"a": ');
      await p.waitForSelector('#data-problem');
      expect(await p.isDisabled('.composer button[type=submit]')).toBe(true);
      await p.fill('textarea[name=data]', '{"a": 1}');
      await p.fill('#composer-text', 'what arrived');
      await p.click('.composer button[type=submit]');
      await p.waitForSelector('[data-testid=turn]:last-child[aria-busy=false]');
      const received = await p.textContent('[data-testid=turn]:last-child .artifact');
      expect(received).toContain('text: what arrived');
      expect(received).toContain('file hello.txt text/plain 5 bytes');
      expect(received).toContain('data {"a":1}');
    });

    it('renders artifacts by media type: sanitized markdown, images, downloads, data', async () => {
      const { page: p } = await page();
      await connect(p, `${gallery.url}/gallery`);
      await sendText(p, 'gallery');
      const turn = p.locator('[data-testid=turn]').last();
      await expect(turn.locator('.part-markdown strong').textContent()).resolves.toBe('good');
      expect(await turn.locator('.part-markdown script').count()).toBe(0);
      expect(await turn.locator('.part-markdown [onerror]').count()).toBe(0);
      // Raw HTML in markdown is text, never markup.
      await expect(turn.locator('.part-markdown').textContent()).resolves.toContain('<script>');
      expect(await turn.locator('.part-markdown a').getAttribute('href')).toBeNull();
      expect(await p.evaluate('window.__pwned')).toBeUndefined();
      expect(await turn.locator('img.part-image').getAttribute('src')).toMatch(
        /^data:image\/png;base64,/,
      );
      expect(await turn.locator('a.part-file').getAttribute('download')).toBe('report.pdf');
      await expect(turn.locator('.part-data').textContent()).resolves.toContain('score');
      await screenshot(p, 'artifacts');
    });

    it('cancels a running task', async () => {
      const { page: p } = await page();
      await connect(p, echo());
      await p.click('#tab-chat');
      await p.fill('#composer-text', 'slowstream 50 200');
      await p.press('#composer-text', 'Enter');
      await p.waitForSelector('[data-testid=turn]:last-child .state-working');
      await p.click('[data-testid=turn]:last-child >> text=Cancel task');
      await p.waitForSelector('[data-testid=turn]:last-child .state-canceled');
      await p.waitForSelector('[data-testid=turn]:last-child[aria-busy=false]');
    });

    it('lists tasks with filters and pages, and shows a task in detail', async () => {
      const { page: p } = await page();
      await connect(p, echo());
      await p.click('#tab-chat');
      await p.uncheck('input[name=stream]');
      for (const word of ['one', 'two', 'three']) await sendText(p, `echo ${word}`);
      await p.click('#tab-tasks');
      await p.selectOption('select[name=state]', 'TASK_STATE_COMPLETED');
      await p.fill('input[name=page-size]', '2');
      await p.click('form[aria-label="Task filters"] button[type=submit]');
      await p.waitForSelector('[data-testid=task-row]');
      expect(await p.locator('[data-testid=task-row]').count()).toBe(2);
      const firstPage = (await p.locator('[data-testid=task-row] button').allTextContents()).join();
      await p.click('text=Next page');
      await p
        .locator('[data-testid=task-row] button')
        .first()
        .filter({ hasNotText: firstPage.split(',')[0] ?? '' })
        .waitFor();
      const secondPage = await p.locator('[data-testid=task-row] button').allTextContents();
      expect(secondPage.length).toBeGreaterThan(0);
      for (const id of secondPage) expect(firstPage).not.toContain(id);
      await p.click('text=Previous page');
      await p.click('[data-testid=task-row] >> nth=0 >> button');
      await p.waitForSelector('[data-testid=task-detail]');
      await expect(p.textContent('[data-testid=detail-state]')).resolves.toBe('completed');
      await expect(p.textContent('[data-testid=task-detail] .history')).resolves.toContain('echo');
      await expect(p.textContent('[data-testid=task-detail]')).resolves.toContain('Artifacts (1)');
      await screenshot(p, 'tasks');
    });

    it('creates a push config at its own receiver and captures the deliveries live', async () => {
      const { page: p } = await page();
      await connect(p, dice());
      await sendText(p, 'roll banana');
      await p.click('#tab-push');
      await p.click('form[aria-label="Push config"] button[type=submit]');
      await p.waitForSelector('[data-testid=push-config]');
      expect(await p.locator('[data-testid=push-config]').count()).toBe(1);
      const before = await p.locator('[data-testid=delivery]').count();
      await sendText(p, '2d6');
      await p.click('#tab-push');
      await p.locator('[data-testid=delivery]').nth(before).waitFor();
      await expect(p.locator('[data-testid=delivery-token]').first().textContent()).resolves.toBe(
        'token match',
      );
      await p.click('[data-testid=delivery] >> nth=0 >> summary');
      await expect(p.textContent('[data-testid=delivery] >> nth=0')).resolves.toContain(
        'x-a2a-notification-token',
      );
      await expect(p.textContent('[data-testid=delivery] >> nth=0')).resolves.toContain('•••');
      await screenshot(p, 'push');
      await p.click('text=List configs');
      await p.click('[data-testid=push-config] >> text=Delete');
      await p.waitForSelector('text=No configs for this task.');
      // A config may point anywhere else too; the agent then delivers there, not here.
      await p.check('input[name=target] >> nth=1');
      await p.fill('input[name=webhook]', 'http://127.0.0.1:9/elsewhere');
      await p.click('form[aria-label="Push config"] button[type=submit]');
      await p.locator('[data-testid=push-config]', { hasText: '127.0.0.1:9/elsewhere' }).waitFor();
      // The deliveries are in the event timeline too.
      await p.click('#tab-events');
      expect(
        await p.locator('[data-testid=event-row]', { hasText: 'push' }).count(),
      ).toBeGreaterThan(0);
    });

    it('shows the wire: headers, bodies, status and timing, as curl and as a tandem command', async () => {
      const { page: p } = await page();
      await connect(p, echo());
      await p.click('#tab-chat');
      await p.uncheck('input[name=stream]');
      await sendText(p, 'echo on the wire');
      await p.click('#tab-wire');
      const row = p.locator('[data-testid=wire-row]', { hasText: 'SendMessage' }).last();
      await row.locator('button').click();
      const detail = p.locator('[data-testid=wire-detail]');
      await expect(detail.textContent()).resolves.toContain('a2a-version');
      await expect(detail.locator('[data-testid=response-body]').textContent()).resolves.toContain(
        'on the wire',
      );
      const curl = await detail.locator('[data-testid=command-curl]').textContent();
      expect(curl).toContain(`curl -sS -X POST ${echo()}/a2a`);
      expect(curl).toContain('SendMessage');
      await expect(detail.locator('[data-testid=command-tandem]').textContent()).resolves.toBe(
        `tandem send ${echo()} -- 'echo on the wire'`,
      );
      expect(await row.locator('td:nth-child(7)').textContent()).toMatch(/^\d+$/);
      await screenshot(p, 'wire');
    });

    it('filters the event timeline, shows raw JSON, and resumes after an event id', async () => {
      const { page: p } = await page();
      await connect(p, echo());
      await p.click('#tab-chat');
      await p.fill('#composer-text', 'slowstream 8 150 2');
      await p.press('#composer-text', 'Enter');
      await p.locator('[data-testid=turn]:last-child .artifact pre').nth(1).waitFor();
      await p.click('#tab-events');
      await p.selectOption('select[name=kind]', 'artifactUpdate');
      const first = p.locator('[data-testid=event-row]').first();
      const eventId = (await first.locator('td:nth-child(3)').textContent()) ?? '';
      expect(eventId).toMatch(/^\d+$/);
      await first.locator('text=Raw').click();
      await expect(p.textContent('.timeline .json-tree')).resolves.toContain('artifactUpdate');
      await first.locator('text=Resume after this').click();
      await p.selectOption('select[name=kind]', 'resumed');
      const marker = p.locator('[data-testid=event-row].event-resumed');
      await marker.waitFor();
      await expect(marker.textContent()).resolves.toContain(`resumed after ${eventId}`);
      // The subscription goes on after that id: its first event is the next one.
      await p.selectOption('select[name=kind]', 'all');
      await p.fill('input[name=filter]', 'subscribe');
      await p.locator('[data-testid=event-row]:not(.event-resumed)').first().waitFor();
      const next = await p
        .locator('[data-testid=event-row]:not(.event-resumed) td:nth-child(3)')
        .first()
        .textContent();
      expect(Number(next)).toBe(Number(eventId) + 1);
      await screenshot(p, 'events');
    });

    it('keeps the conversation across a reload, but not the credentials', async () => {
      const { page: p } = await page();
      await connect(p, dice(), { bearerToken: 'not-needed-here-1234' });
      await sendText(p, 'roll banana');
      await p.reload();
      await p.waitForSelector('#tab-chat[aria-selected=true]');
      expect(await p.locator('[data-testid=turn]').count()).toBe(1);
      await p.waitForSelector('[data-testid=continuing]');
      const stored = await p.evaluate('JSON.stringify({ ...sessionStorage, ...localStorage })');
      expect(stored).not.toContain('not-needed-here-1234');
      await p.click('#tab-connect');
      expect(await p.inputValue('input[name=url]')).toBe(dice());
      // The connection lives on in the backend: the next message continues the task.
      await sendText(p, '2d6');
      const ids = await p.locator('[data-testid=task-id]').allTextContents();
      expect(ids[0]).toBe(ids[1]);
    });

    it('shows a failed call with the message the CLI gives', async () => {
      const watched = await page();
      const p = watched.page;
      const url = await unreachableUrl();
      const cli = await runCli(['card', url]);
      const line = cli.stderr.trim().replace(/^tandem: /, '');
      await p.click('#tab-connect');
      await p.fill('input[name=url]', url);
      // The backend answers 502 with the failure; the browser logs that as a failed load.
      watched.allowFailedLoad(502);
      await p.click('form[aria-label=Connect] button[type=submit]');
      await p.waitForSelector('[data-testid=error-banner]');
      const banner = await p.textContent('[data-testid=error-banner]');
      expect(banner).toContain(line);
      expect(banner).toContain('(exit 3)');
    });
  },
);
