/**
 * An accessibility pass over the inspector's main views with axe-core, run in the same Chromium:
 * no serious or critical violation, in the light theme and the dark one. Also keyboard use: the
 * tab list moves with the arrow keys, Alt+<n> jumps to a view, and Shift+Enter adds a line where
 * Enter sends.
 */

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild, type ServerProcess } from '../support/processes.js';
import {
  connect,
  hasChromium,
  launchBrowser,
  NO_CHROMIUM,
  openInspector,
  screenshot,
  sendText,
  startInspector,
  startServe,
  type InspectorProcess,
  type TestBrowser,
  type WatchedPage,
} from './browser-harness.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** The serious and critical violations axe finds on the page as it is. */
async function seriousViolations(watched: WatchedPage): Promise<Violation[]> {
  // Evaluated through the DevTools protocol: the page's policy forbids injected scripts.
  await watched.page.evaluate(AXE);
  const result = await watched.page.evaluate<{ passes: number; violations: Violation[] }>(
    `axe.run(document).then((r) => ({
      passes: r.passes.length,
      violations: r.violations.map((v) => ({
        id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')).slice(0, 3),
      })),
    }))`,
  );
  // axe ran its rules over the page (a page it could not read would pass nothing).
  expect(result.passes).toBeGreaterThan(10);
  const violations = result.violations;
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

describe.skipIf(!hasChromium)(
  `accessibility of the inspector${hasChromium ? '' : ` (${NO_CHROMIUM})`}`,
  () => {
    let browser: TestBrowser;
    let serve: { url: string; process: ServerProcess };
    let inspector: InspectorProcess;

    beforeAll(async () => {
      requireBuild();
      [browser, serve, inspector] = await Promise.all([
        launchBrowser(),
        startServe(['--agent', 'dice']),
        startInspector(),
      ]);
    });

    afterAll(async () => {
      await Promise.all([browser?.close(), inspector?.stop(), serve?.process.terminate()]);
    });

    it.each(['light', 'dark'] as const)(
      'has no serious violation on the main views in the %s theme',
      async (colorScheme) => {
        const watched = await browser.newPage({ colorScheme });
        const p = watched.page;
        await openInspector(watched, inspector.url);
        const found: Record<string, Violation[]> = {};
        found.connect = await seriousViolations(watched);
        await connect(p, serve.url);
        found.card = await seriousViolations(watched);
        await sendText(p, 'roll banana');
        await sendText(p, '2d6');
        found.chat = await seriousViolations(watched);
        if (colorScheme === 'dark') await screenshot(p, 'chat-dark');
        await p.click('#tab-events');
        await p.click('[data-testid=event-row] >> nth=0 >> text=Raw');
        found.events = await seriousViolations(watched);
        await p.click('#tab-tasks');
        await p.click('form[aria-label="Task filters"] button[type=submit]');
        await p.click('[data-testid=task-row] >> nth=0 >> button');
        await p.waitForSelector('[data-testid=task-detail]');
        found.tasks = await seriousViolations(watched);
        await p.click('#tab-push');
        found.push = await seriousViolations(watched);
        await p.click('#tab-wire');
        await p.click('[data-testid=wire-row] >> nth=-1 >> button');
        found.wire = await seriousViolations(watched);
        await p.click('#tab-check');
        found.check = await seriousViolations(watched);
        expect(Object.fromEntries(Object.entries(found).filter(([, v]) => v.length > 0))).toEqual(
          {},
        );
        watched.assertClean();
        await p.close();
      },
    );

    it('is usable from the keyboard', async () => {
      const watched = await browser.newPage();
      const p = watched.page;
      await openInspector(watched, inspector.url);
      await connect(p, serve.url);
      await p.focus('#tab-card');
      await p.keyboard.press('ArrowRight');
      await p.waitForSelector('#tab-chat[aria-selected=true]');
      expect(await p.evaluate('document.activeElement.id')).toBe('tab-chat');
      await p.keyboard.press('Alt+7');
      await p.waitForSelector('#tab-wire[aria-selected=true]');
      await p.keyboard.press('Alt+3');
      await p.focus('#composer-text');
      await p.keyboard.type('first line');
      await p.keyboard.press('Shift+Enter');
      await p.keyboard.type('2d6');
      expect(await p.inputValue('#composer-text')).toBe('first line\n2d6');
      expect(await p.locator('[data-testid=turn]').count()).toBe(0);
      await p.keyboard.press('Enter');
      await p.locator('[data-testid=turn]').first().waitFor();
      // The theme switch is kept across reloads.
      await p.selectOption('select[name=theme]', 'dark');
      await p.reload();
      await p.waitForSelector('html[data-theme=dark]');
      watched.assertClean();
      await p.close();
    });
  },
);
