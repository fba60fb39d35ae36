// Bundles the `tandem` command into dist/cli/ (one entry, one chunk per lazily loaded command,
// agent and store). Resolving and reading some seventy separate modules at startup costs Node
// more than running them; bundled, `tandem serve` is listening within a few milliseconds of
// Node's own start-up. The library entry points (`tandem`, `tandem/server`, `tandem/client`)
// stay separate modules compiled by tsc, for the bundlers of the applications that import them.
import { build } from 'esbuild';

await build({
  entryPoints: { main: 'src/cli/main.ts' },
  outdir: 'dist/cli',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  // Less to parse at every start; identifiers stay, so stack traces still name functions.
  minifyWhitespace: true,
  minifySyntax: true,
  // valibot is ESM and tree-shakes to the few functions used. The other dependencies are native
  // (better-sqlite3) or CommonJS, and are loaded only when a store or the logger needs them.
  external: ['better-sqlite3', 'pg', 'pino'],
  logLevel: 'warning',
});
