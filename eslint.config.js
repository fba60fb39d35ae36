// @ts-check
import js from '@eslint/js';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * The layering of docs/architecture.md, held by lint: each folder lists the folders it must
 * not import from. `protocol` is the wire contract and stays free of `node:` so that it runs
 * anywhere (browsers, edge runtimes).
 */
const layers = {
  // Telemetry through @opentelemetry/api: the attribute conventions, the instrument catalogue and
  // the propagation of trace context, shared by the client and the server; free of node: too.
  telemetry: [
    'runtime',
    'stores',
    'bindings',
    'http',
    'client',
    'cli',
    'agents',
    'security',
    'push',
    'compose',
  ],
  protocol: [
    'runtime',
    'stores',
    'bindings',
    'http',
    'client',
    'cli',
    'agents',
    'security',
    'push',
    'compose',
    'telemetry',
  ],
  stores: ['runtime', 'bindings', 'http', 'client', 'cli', 'agents', 'security', 'push', 'compose'],
  runtime: ['bindings', 'http', 'client', 'cli', 'agents', 'security', 'push', 'compose'],
  // Push delivery: implements the runtime's push seam over the stores.
  push: ['bindings', 'http', 'client', 'cli', 'agents', 'security', 'compose'],
  bindings: ['http', 'cli', 'agents', 'client', 'security', 'compose'],
  http: ['client', 'cli', 'agents', 'security', 'compose'],
  // The SDK preset (tandem/otel): the SDK's packages over telemetry's catalogue, nothing of the server.
  otel: [
    'runtime',
    'stores',
    'bindings',
    'http',
    'client',
    'cli',
    'agents',
    'security',
    'push',
    'compose',
  ],
  // Authenticators and card signing: they implement the seams of bindings/server.
  security: ['stores', 'http', 'client', 'cli', 'agents', 'compose'],
  // The server as one object (createA2AServer) and the defaults the entry points supply: it
  // composes every server layer, and only the entry points import it.
  compose: ['client', 'cli', 'agents'],
  client: ['runtime', 'stores', 'http', 'cli', 'agents', 'security', 'push', 'compose'],
  agents: [
    'runtime',
    'stores',
    'bindings',
    'http',
    'client',
    'cli',
    'protocol',
    'security',
    'push',
    'compose',
    'telemetry',
  ],
  // tandem/check: a client of any agent, over the protocol, the client and the client halves of
  // the bindings (their codecs); nothing of the server.
  check: [
    'runtime',
    'stores',
    'http',
    'cli',
    'agents',
    'security',
    'push',
    'compose',
    'telemetry',
    'inspector',
  ],
  // tandem inspect's backend: a client of any agent through the entry points; the checker comes
  // through its seam (check-runner.ts), loaded by whoever starts the inspector.
  inspector: [
    'runtime',
    'stores',
    'bindings',
    'http',
    'cli',
    'agents',
    'security',
    'push',
    'compose',
    'telemetry',
    'check',
  ],
  // The CLI is an application of the public API: the entry points and the demo agents only.
  cli: [
    'runtime',
    'stores',
    'bindings',
    'http',
    'client',
    'protocol',
    'security',
    'push',
    'compose',
    'telemetry',
  ],
};

/**
 * Folders inside a layer that lie below their siblings: each also keeps the rules of its layer
 * (a file matched by two entries would take only the later one's list).
 */
const subLayers = {
  // The server core every binding shares: no binding of its own.
  'bindings/server': { layer: 'bindings', forbidden: ['jsonrpc', 'rest', 'grpc', 'v0_3'] },
  // The memory store: none of the SQL stores or their shared code.
  'stores/memory': { layer: 'stores', forbidden: ['sql', 'sqlite', 'postgres'] },
};

/**
 * The client halves of the bindings: the client contract, each binding's `*-client-*` files, and
 * the 0.3 translators, which both halves share and which depend on protocol only.
 */
const clientHalves = [
  'src/bindings/client/**/*.ts',
  'src/bindings/**/*-client-*.ts',
  'src/bindings/v0_3/translate/**/*.ts',
];
const grpcWireCodec = [
  'src/bindings/grpc/grpc-codec.ts',
  'src/bindings/grpc/grpc-status.ts',
  'src/bindings/grpc/grpc-event-ids.ts',
  'src/bindings/grpc/implicit-defaults.ts',
  'src/bindings/grpc/generated/**',
  // The 0.3 service's methods and messages (a2a.v1.A2AService of the 0.3 proto).
  'src/bindings/v0_3/v03-grpc-codec.ts',
];

/** Each folder with what it must not import: a folder's name, and its path for the message. */
const layerFolders = [
  ...Object.entries(layers).map(([layer, forbidden]) => ({
    layer,
    forbidden: forbidden.map((name) => ({ name, path: `src/${name}` })),
  })),
  ...Object.entries(subLayers).map(([folder, { layer, forbidden }]) => ({
    layer: folder,
    forbidden: [
      ...layers[layer].map((name) => ({ name, path: `src/${name}` })),
      ...forbidden.map((name) => ({ name, path: `src/${layer}/${name}` })),
    ],
  })),
];

const layerRules = layerFolders.map(({ layer, forbidden }) => ({
  files: [`src/${layer}/**/*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          ...forbidden.map(({ name, path }) => ({
            // `../client.js` and `../server.js` are entry points, not the folders behind them.
            group: [`**/${name}/**`, `**/${name}`],
            message: `src/${layer} must not depend on ${path} (see docs/architecture.md).`,
          })),
          ...(layer === 'protocol' || layer === 'client' || layer === 'telemetry'
            ? [{ group: ['node:*'], message: `src/${layer} must stay free of node: imports.` }]
            : []),
        ],
      },
    ],
  },
}));

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'coverage/**',
      'node_modules/**',
      'bench/results/**',
      // protoc-gen-es output (scripts/generate-grpc.mjs); tsc still checks it.
      'src/bindings/grpc/generated/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: ['*.js', '*.mjs', 'scripts/*.mjs', 'scripts/*.cjs'],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      'no-empty': ['error', { allowEmptyCatch: false }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: globals.node,
    },
  },
  {
    // The CommonJS scripts of the CLI build (the bundles' loader) import the CommonJS way.
    files: ['**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-console': 'error',
    },
  },
  {
    // Rules over the resolved module graph. No module of src/ may reach itself through its
    // imports: a circle makes the load order (and so which bindings are still undefined) depend on
    // which module is imported first.
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      // Sources import `./x.js` for `./x.ts`, as Node's ESM resolution of the build output needs.
      'import-x/resolver-next': [
        createNodeResolver({
          extensions: ['.ts', '.js'],
          extensionAlias: { '.js': ['.ts', '.js'] },
        }),
      ],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      // Boundaries that import specifiers cannot express (src/client vs src/bindings/client),
      // checked on resolved paths.
      'import-x/no-restricted-paths': [
        'error',
        {
          basePath: import.meta.dirname,
          zones: [
            {
              target: clientHalves,
              from: ['src/**/*'],
              except: [
                '**/src/protocol/**',
                ...clientHalves.map((glob) => `**/${glob}`),
                // The gRPC wire codec: protobuf messages and statuses, shared by both halves of
                // the binding, and free of server code.
                ...grpcWireCodec.map((glob) => `**/${glob}`),
              ],
              message:
                'Client transports depend only on src/protocol, src/bindings/client and the ' +
                'other client halves (*-client-*.ts).',
            },
            {
              target: ['src/client/**/*.ts', 'src/client.ts'],
              from: ['src/bindings/**/*'],
              except: clientHalves.map((glob) => `**/${glob}`),
              message:
                'The client uses the client halves of the bindings only (src/bindings/client, ' +
                '*-client-*.ts); a name both halves need belongs in src/protocol.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/cli/**/*.ts'],
    rules: {
      'no-console': 'off',
    },
  },
  ...layerRules,
  {
    // The client halves of the bindings run wherever the client runs: browsers included. What
    // else they may import is held by import-x/no-restricted-paths above.
    files: clientHalves,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'], message: 'Client transports must stay free of node: imports.' },
          ],
        },
      ],
    },
  },
  {
    // The gRPC client half runs on Node only (grpc-js is built on node:http2 and node:tls) and
    // is loaded only when a card selects gRPC; its channel needs Node's own TLS host check.
    files: ['src/bindings/grpc/grpc-client-channel.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', '!node:net', '!node:tls'],
              message: 'The gRPC client channel uses node:net and node:tls only.',
            },
          ],
        },
      ],
    },
  },
);
