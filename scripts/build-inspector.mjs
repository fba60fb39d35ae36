// Builds the inspector's page (web/inspector) into dist/inspector/page/: one JavaScript bundle,
// one stylesheet and the HTML, all served by the inspector itself, so that the page needs no
// network at run time. esbuild bundles Preact, marked and DOMPurify into the script; the
// inspector's tests measure its gzipped size (at most 150 KB).
import { copyFile, mkdir } from 'node:fs/promises';
import { build } from 'esbuild';

const OUT = 'dist/inspector/page';

await mkdir(OUT, { recursive: true });
await Promise.all([
  build({
    entryPoints: { inspector: 'web/inspector/main.tsx' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome120', 'firefox120', 'safari17'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    sourcemap: false,
    outdir: OUT,
    legalComments: 'eof',
    logLevel: 'warning',
  }),
  build({
    entryPoints: { inspector: 'web/inspector/inspector.css' },
    bundle: true,
    minify: true,
    outdir: OUT,
    logLevel: 'warning',
  }),
  copyFile('web/inspector/index.html', `${OUT}/index.html`),
]);
