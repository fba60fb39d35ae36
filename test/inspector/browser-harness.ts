/**
 * The inspector's browser tests: Debian's Chromium (`/usr/bin/chromium`, `apt-get install
 * chromium`) driven by playwright-core, which downloads no browser. One browser per test file,
 * headless, in a fresh profile, with everything that would reach the network turned off. Each
 * page fails its test on any console error or uncaught page error; screenshots go to
 * `test-artifacts/inspector/` (git-ignored). Without Chromium the tests skip, and say why.
 */

import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterEach } from 'vitest';
import { CLI, ServerProcess } from '../support/processes.js';

/** Where Debian puts Chromium; `TANDEM_TEST_CHROMIUM` names another binary. */
export const CHROMIUM = process.env.TANDEM_TEST_CHROMIUM || '/usr/bin/chromium';

/** Whether the browser tests can run; when not, they are skipped with this reason. */
export const hasChromium = existsSync(CHROMIUM);
export const NO_CHROMIUM = `skipped: ${CHROMIUM} is missing (apt-get install chromium)`;
// Say so where it shows: the default reporter lists skipped files, not why.
if (!hasChromium) console.warn(`test/inspector browser tests ${NO_CHROMIUM}`);

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Where screenshots go: a test artifact, ignored by git. */
export const ARTIFACTS = join(ROOT, 'test-artifacts/inspector');

/** Flags that keep Chromium off the network and quick to start in a container. */
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** A page that records console errors and uncaught errors, to fail the test on. */
export interface WatchedPage {
  readonly page: Page;
  /** Every console error and page error so far. */
  readonly problems: string[];
  /**
   * Accepts the browser's console line for API calls answered with `status` — the one console
   * error a test of a failure expects (the page shows the failure itself).
   */
  allowFailedLoad(status: number): void;
  /** Throws when the page logged an error or threw. */
  assertClean(): void;
}

/** One browser for a test file. */
export interface TestBrowser {
  newPage(options?: { colorScheme?: 'light' | 'dark' }): Promise<WatchedPage>;
  close(): Promise<void>;
}

/** Launches Chromium headless in a fresh profile. */
export async function launchBrowser(): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'tandem-chromium-'));
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1200, height: 860 },
  });
  const pages: WatchedPage[] = [];
  return {
    async newPage(options = {}) {
      const page = await context.newPage();
      if (options.colorScheme !== undefined) {
        await page.emulateMedia({ colorScheme: options.colorScheme });
      }
      const problems: string[] = [];
      const allowed = new Set<number>();
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      const watched: WatchedPage = {
        page,
        problems,
        allowFailedLoad: (status) => allowed.add(status),
        assertClean() {
          const unexpected = problems.filter(
            (problem) =>
              ![...allowed].some((status) =>
                problem.includes(
                  `Failed to load resource: the server responded with a status of ${status}`,
                ),
              ),
          );
          if (unexpected.length > 0)
            throw new Error(`The page reported:\n${unexpected.join('\n')}`);
        },
      };
      pages.push(watched);
      return watched;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Writes a screenshot of `page` as `test-artifacts/inspector/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** `tandem inspect` prints this once it listens; group 1 is its URL. */
export const INSPECT_URL_LINE = /^Tandem inspector at (http:\/\/\S+)$/;

/** A `tandem inspect` child process. */
export interface InspectorProcess {
  readonly url: string;
  readonly process: ServerProcess;
  stop(): Promise<void>;
}

/** Starts `tandem inspect` from the build on a free port, without opening a browser. */
export async function startInspector(args: readonly string[] = []): Promise<InspectorProcess> {
  const process = new ServerProcess([CLI, 'inspect', ...args, '--port', '0', '--no-open']);
  const match = await process.line(INSPECT_URL_LINE, 10_000);
  return {
    url: match[1] ?? '',
    process,
    stop: async () => {
      await process.terminate();
    },
  };
}

/** `tandem serve` as a child process, shared by the tests of a file. */
export async function startServe(
  args: readonly string[],
): Promise<{ url: string; process: ServerProcess }> {
  const process = new ServerProcess([
    CLI,
    'serve',
    '--store',
    'memory',
    '--port',
    '0',
    '--log-level',
    'silent',
    ...args,
  ]);
  const match = await process.line(/^Tandem is serving .* at (http:\/\/\S+)$/, 10_000);
  return { url: match[1] ?? '', process };
}

/** Opens the inspector's page and waits until it has loaded what its backend holds. */
export async function openInspector(watched: WatchedPage, url: string): Promise<void> {
  await watched.page.goto(url);
  await watched.page.waitForSelector('[data-testid=header-agent]');
}

/**
 * A fresh page of the inspector per test: opened on `url()`, checked for console and page errors
 * after the test, then closed. Returns the opener; call it once per test.
 */
export function inspectorPages(
  browser: () => TestBrowser,
  url: () => string,
): () => Promise<WatchedPage> {
  let current: WatchedPage | undefined;
  afterEach(async () => {
    const watched = current;
    current = undefined;
    if (watched === undefined) return;
    try {
      watched.assertClean();
    } finally {
      await watched.page.close();
    }
  });
  return async () => {
    current = await browser().newPage();
    await openInspector(current, url());
    return current;
  };
}

/** Connects the page to `agentUrl` through the Connect view. */
export async function connect(
  page: Page,
  agentUrl: string,
  options: { binding?: string; version?: string; bearerToken?: string } = {},
): Promise<void> {
  await page.click('#tab-connect');
  await page.fill('input[name=url]', agentUrl);
  if (options.binding !== undefined)
    await page.selectOption('select[name=binding]', options.binding);
  if (options.version !== undefined)
    await page.selectOption('select[name=version]', options.version);
  if (options.bearerToken !== undefined) {
    await page.selectOption('select[name=auth]', 'bearer');
    await page.fill('input[name=secret]', options.bearerToken);
  }
  await page.click('form[aria-label=Connect] button[type=submit]');
  await page.waitForSelector('#tab-card[aria-selected=true]');
}

/** Sends `text` from the Chat view with Enter and waits until the turn has settled. */
export async function sendText(page: Page, text: string): Promise<void> {
  await page.click('#tab-chat');
  const turns = await page.locator('[data-testid=turn]').count();
  await page.fill('#composer-text', text);
  await page.press('#composer-text', 'Enter');
  await page.waitForSelector(`[data-testid=turn]:nth-child(${turns + 1})[aria-busy=false]`);
}
