// Bundles the `tandem` command into three CommonJS files in dist/cli/: `main.cjs` (the
// dispatcher, which only reads its arguments), `serve.cjs` (the server, its stores and demo
// agents) and `client.cjs` (the commands that call an agent). A process loads the dispatcher and
// one of the other two.
//
// Why bundles: resolving and reading some seventy separate modules at startup costs Node more
// than running them. Why CommonJS: on Node 20, entering the ES module loader at all, and each
// module it loads, adds up to ~10 ms to `tandem serve`'s start (async module jobs, resolution,
// namespace objects of built-ins), against ~20 ms for everything the server itself does before
// it listens; `require()` of one file is synchronous. Modules that a bundle imports dynamically
// (the stores, the demo agents, each client command) are kept lazy by esbuild: parsed with the
// file, run only when first imported. See docs/benchmarks.md (cold start).
//
// The library entry points (`tandem`, `tandem/server`, `tandem/client`) stay ES modules compiled
// by tsc, for the bundlers of the applications that import them.
import { resolve } from 'node:path';
import { build } from 'esbuild';

/** The dispatcher's dynamic imports, which become `require()`s of the sibling bundles. */
const siblingBundles = {
  './serve.js': './serve.cjs',
  './client-commands.js': './client.cjs',
};

const DISPATCHER = resolve('src/cli/main.ts');

const keepSiblingsApart = {
  name: 'keep-sibling-bundles-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/(serve|client-commands)\.js$/ }, (args) =>
      args.importer === DISPATCHER
        ? { path: siblingBundles[args.path], external: true }
        : undefined,
    );
  },
};

const common = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  outdir: 'dist/cli',
  outExtension: { '.js': '.cjs' },
  // `import()` of the sibling bundles becomes `require()`: a dynamic import would enter the ES
  // module loader after all, and scan the whole bundle for its CommonJS exports.
  supported: { 'dynamic-import': false },
  sourcemap: true,
  // Less to parse at every start; identifiers stay, so stack traces still name functions.
  minifyWhitespace: true,
  minifySyntax: true,
  // `import.meta.url` has no CommonJS equivalent built in; the shim derives it from __filename.
  define: { 'import.meta.url': 'importMetaUrl' },
  inject: ['scripts/bundle-cli-import-meta-url.js'],
  // The other dependencies are native (better-sqlite3) or CommonJS, and are required only when
  // a store or the logger needs them; jose is ESM, loaded with require() (Node >= 20.19 runs ES
  // modules that way) only when JWT authentication or card signing is used. valibot is ESM and
  // tree-shakes to the few functions used.
  // grpc-js and the protobuf runtime (CommonJS) are required only when gRPC is served or used.
  external: [
    'better-sqlite3',
    'pg',
    'pino',
    'jose',
    'undici',
    '@grpc/grpc-js',
    '@grpc/reflection',
    'grpc-health-check',
    '@bufbuild/protobuf',
  ],
  logLevel: 'warning',
};

await Promise.all([
  build({ ...common, entryPoints: { main: 'src/cli/main.ts' }, plugins: [keepSiblingsApart] }),
  build({ ...common, entryPoints: { serve: 'src/cli/serve.ts' } }),
  build({ ...common, entryPoints: { client: 'src/cli/client-commands.ts' } }),
]);
