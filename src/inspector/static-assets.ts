/**
 * The page: built by `npm run build` (scripts/build-inspector.mjs) into `dist/inspector/page/`
 * and shipped in the package, read once when the inspector starts, so that it works offline and
 * loads nothing from anywhere but the inspector itself. The run's token and the base path are
 * written into the HTML; a Content-Security-Policy keeps the page to its own origin.
 */

import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { ConfigurationError } from '../index.js';

/** The files of the page: name → content and type. */
export interface PageAssets {
  readonly html: string;
  readonly files: ReadonlyMap<string, { readonly body: Buffer; readonly type: string }>;
}

const TYPES: Readonly<Record<string, string>> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
};

/** The files the build writes besides `index.html`. */
export const PAGE_FILES = ['inspector.js', 'inspector.css'] as const;

/**
 * Reads the page from `directory`.
 *
 * @throws ConfigurationError when the build has not written it.
 */
export function readPageAssets(directory: URL): PageAssets {
  const read = (name: string): Buffer => {
    try {
      return readFileSync(new URL(name, directory));
    } catch (error) {
      throw new ConfigurationError(
        `The inspector's page is missing (${new URL(name, directory).pathname}): run \`npm run build\``,
        { cause: error },
      );
    }
  };
  const files = new Map<string, { body: Buffer; type: string }>();
  for (const name of PAGE_FILES) {
    files.set(name, {
      body: read(name),
      type: TYPES[name.split('.').pop() ?? ''] ?? 'application/octet-stream',
    });
  }
  return { html: read('index.html').toString('utf8'), files };
}

/** The headers every answer of the inspector carries. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/**
 * The page's policy: scripts, styles and calls to its own origin only; images inline (data:
 * and blob: URLs of file parts the agent sent) — a file the agent names by URL is a link, not
 * an image the browser would fetch from wherever it points.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** Answers the page itself, with the run's token and base path in it. */
export function sendPage(
  response: ServerResponse,
  assets: PageAssets,
  values: { token: string; basePath: string },
): void {
  const html = assets.html
    .replaceAll('%INSPECTOR_TOKEN%', escapeAttribute(values.token))
    .replaceAll('%INSPECTOR_BASE%', escapeAttribute(values.basePath));
  response.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': CONTENT_SECURITY_POLICY,
  });
  response.end(html);
}

/** Answers one of the page's files; `false` when `name` is none of them. */
export function sendAsset(response: ServerResponse, assets: PageAssets, name: string): boolean {
  const file = assets.files.get(name);
  if (file === undefined) return false;
  response.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': file.type,
    'cache-control': 'no-cache',
  });
  response.end(file.body);
  return true;
}
