// Bundles the `tandem` command into CommonJS files in dist/cli/: `main.cjs` (the dispatcher,
// which only reads its arguments), `serve.cjs` (the server) and `client.cjs` (the commands that
// call an agent), each with the optional parts it loads on demand beside it
// (`serve.<part>.cjs`). A process loads the dispatcher, one of the other two, and only the parts
// its options ask for.
//
// Why bundles: resolving and reading some seventy separate modules at startup costs Node more
// than running them. Why CommonJS: on Node 20, entering the ES module loader at all, and each
// module it loads, adds up to ~10 ms to `tandem serve`'s start (async module jobs, resolution,
// namespace objects of built-ins), against ~20 ms for everything the server itself does before
// it listens; `require()` of one file is synchronous. Modules that a bundle imports dynamically
// (a demo agent, each client command) are kept lazy by esbuild: parsed with the file, run only
// when first imported.
//
// Why parts: parsing is paid for every byte of a file, run or not. The big optional pieces (the
// gRPC binding and its generated code, the 0.3 translators, the disk stores, each demo agent) are cut off at the dynamic imports that load them, `PART_ROOTS`, and each
// goes to a file of its own. esbuild splits code only for ES modules, so the split is done here:
// every source module goes to exactly one file (one copy of each class, so `instanceof` holds
// across files), and a file reaches another file's modules through the `__tandemModule(id)` that
// each file exports. See docs/benchmarks.md (cold start).
//
// The library entry points (`tandem`, `tandem/server`, `tandem/client`...) stay ES modules
// compiled by tsc, for the bundlers of the applications that import them.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';

const run = promisify(execFile);

/**
 * The dispatcher's dynamic imports, which become loads of the sibling bundles with their code
 * caches (scripts/bundle-cli-loader.cjs).
 */
const siblingBundles = {
  './serve.js': 'serve.cjs',
  './client-commands.js': 'client.cjs',
};
const LOADER = resolve('scripts/bundle-cli-loader.cjs');

/**
 * The modules whose dynamic import starts an optional part. A module the bundle's entry reaches
 * without a dynamic import of one of these stays in the main file; a part root imported
 * statically from there is an error, since it would be loaded at start-up anyway.
 */
const PART_ROOTS = [
  /^src\/server-grpc\.ts$/,
  // The gRPC listener, which createA2AServer loads when it starts one, and the 0.3 service on it.
  /^src\/bindings\/grpc\/grpc-listener\.ts$/,
  /^src\/bindings\/v0_3\/v03-grpc-service\.ts$/,
  /^src\/server-compat\.ts$/,
  /^src\/stores\/(sqlite|postgres)\/[a-z-]+-task-store\.ts$/,
  /^src\/agents\/(dice|translator|echo|conformance)\.ts$/,
  /^src\/agents\/(chat|orchestrator)\/[a-z-]+-agent\.ts$/,
  /^src\/agents\/chat\/chat-config\.ts$/,
  /^src\/bindings\/(grpc|v0_3)\/[a-z0-9-]+-client-transport\.ts$/,
  // `tandem inspect`: the web inspector's backend, loaded only by that command.
  /^src\/cli\/inspect\.ts$/,
  // The OpenTelemetry SDK preset, loaded only when the environment asks for telemetry.
  /^src\/otel\.ts$/,
  // The conformance checker: only `tandem check` parses it.
  /^src\/cli\/check\.ts$/,
];

const DISPATCHER = resolve('src/cli/main.ts');

const keepSiblingsApart = {
  name: 'keep-sibling-bundles-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/(serve|client-commands)\.js$/ }, (args) =>
      args.importer === DISPATCHER
        ? { path: siblingBundles[args.path], namespace: 'sibling-bundle' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'sibling-bundle' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(LOADER)}).loadBundle(${JSON.stringify(args.path)});`,
      resolveDir: process.cwd(),
      loader: 'js',
    }));
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

const isStatic = (kind) => kind === 'import-statement' || kind === 'require-call';
const isSource = (path) => path.startsWith('src/');

/** The module graph of `entry`: each source module with the source modules it imports. */
async function moduleGraph(entry) {
  const result = await build({ ...common, entryPoints: [entry], write: false, metafile: true });
  const graph = new Map();
  for (const [path, input] of Object.entries(result.metafile.inputs)) {
    if (!isSource(path)) continue;
    graph.set(
      path,
      input.imports.filter((i) => !i.external && isSource(i.path)),
    );
  }
  return graph;
}

/** The modules reachable from `start` without entering a part root other than `start`. */
function closure(graph, start, roots) {
  const seen = new Set([start]);
  const queue = [start];
  while (queue.length > 0) {
    const module = queue.pop();
    for (const { path } of graph.get(module) ?? []) {
      if (seen.has(path) || (roots.has(path) && path !== start)) continue;
      seen.add(path);
      queue.push(path);
    }
  }
  return seen;
}

const slug = (root) =>
  root
    .replace(/^src\//, '')
    .replace(/\.ts$/, '')
    .replace(/[^a-z0-9]+/gi, '-');

/**
 * Which file holds each module of `entry`'s graph: `<name>.cjs` for what start-up needs,
 * `<name>.<part>.cjs` for what only one part root reaches, `<name>.shared-<hash>.cjs` for what
 * several (and only those) reach.
 */
function assignFiles(graph, entry, name) {
  const roots = new Set();
  for (const imports of graph.values()) {
    for (const { path, kind } of imports) {
      if (kind === 'dynamic-import' && PART_ROOTS.some((pattern) => pattern.test(path))) {
        roots.add(path);
      }
    }
  }
  const held = closure(graph, entry, roots);
  for (const module of held) {
    for (const { path, kind } of graph.get(module) ?? []) {
      if (roots.has(path) && isStatic(kind)) {
        throw new Error(`${module} imports the part root ${path} statically; import() it instead`);
      }
    }
  }
  const reachedBy = new Map();
  for (const root of roots) {
    for (const module of closure(graph, root, roots)) {
      if (held.has(module)) continue;
      if (!reachedBy.has(module)) reachedBy.set(module, []);
      reachedBy.get(module).push(root);
    }
  }
  const fileOf = new Map([...held].map((module) => [module, `${name}.cjs`]));
  for (const [module, by] of reachedBy) {
    const key = by.sort().join('\n');
    const part =
      by.length === 1
        ? slug(by[0])
        : `shared-${createHash('sha256').update(key).digest('hex').slice(0, 8)}`;
    fileOf.set(module, `${name}.${part}.cjs`);
  }
  return fileOf;
}

/**
 * Resolves an import of a module that another file holds to a stand-in that requires that file
 * and takes the module from it.
 */
function modulesOfOtherFiles(fileOf, file) {
  return {
    name: 'modules-of-other-files',
    setup(build) {
      build.onResolve({ filter: /^\.\.?\// }, async (args) => {
        if (args.namespace === 'tandem-file') return { path: args.path, external: true };
        if (args.pluginData?.own === true) return undefined;
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: { own: true },
        });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        const id = relative(process.cwd(), resolved.path);
        const holder = fileOf.get(id);
        if (holder === undefined || holder === file) return { path: resolved.path };
        return { path: id, namespace: 'tandem-file', pluginData: { holder } };
      });
      build.onLoad({ filter: /.*/, namespace: 'tandem-file' }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(`./${args.pluginData.holder}`)}).__tandemModule(${JSON.stringify(args.path)});`,
        loader: 'js',
      }));
    },
  };
}

/**
 * The entry of one file: `__tandemModule(id)` for the modules of it that others import, and
 * the bundle's own exports for the main file.
 */
function fileEntry(graph, fileOf, file, entry) {
  const wanted = new Set();
  for (const [module, imports] of graph) {
    if (fileOf.get(module) === file) continue;
    for (const { path } of imports) if (fileOf.get(path) === file) wanted.add(path);
  }
  const cases = [...wanted]
    .sort()
    .map((id) => `case ${JSON.stringify(id)}: return require(${JSON.stringify(resolve(id))});`);
  return [
    ...(fileOf.get(entry) === file ? [`export * from ${JSON.stringify(resolve(entry))};`] : []),
    `export function __tandemModule(id) { switch (id) { ${cases.join(' ')} } throw new Error('no module ' + id); }`,
  ].join('\n');
}

/** Builds `entry` as `<name>.cjs` and the parts beside it. */
async function bundleWithParts(entry, name) {
  const graph = await moduleGraph(entry);
  const fileOf = assignFiles(graph, entry, name);
  const files = [...new Set(fileOf.values())];
  await Promise.all(
    files.map((file) =>
      build({
        ...common,
        stdin: {
          contents: fileEntry(graph, fileOf, file, entry),
          resolveDir: process.cwd(),
          sourcefile: file.replace(/\.cjs$/, '.entry.js'),
        },
        outfile: `dist/cli/${file}`,
        outdir: undefined,
        sourcemap: true,
        plugins: [modulesOfOtherFiles(fileOf, file)],
      }),
    ),
  );
}

await Promise.all([
  build({
    ...common,
    entryPoints: { main: 'src/cli/main.ts' },
    sourcemap: true,
    plugins: [keepSiblingsApart],
  }),
  bundleWithParts('src/cli/serve.ts', 'serve'),
  bundleWithParts('src/cli/client-commands.ts', 'client'),
]);

// The code caches, each made in a process of its own (see scripts/bundle-cli-cache.cjs).
await Promise.all(
  Object.values(siblingBundles).map(async (file) => {
    const { stderr } = await run(process.execPath, [
      'scripts/bundle-cli-cache.cjs',
      `dist/cli/${file}`,
    ]);
    process.stderr.write(stderr);
  }),
);
