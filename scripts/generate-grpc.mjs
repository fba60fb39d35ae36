// Generates the protobuf code of the gRPC binding (src/bindings/grpc/generated/) from
// spec/a2a.proto (and the 0.3 proto, spec/v0.3/a2a.proto, into generated/v0_3/) and the googleapis definitions it imports (vendored under proto/), with buf and
// protoc-gen-es, both pinned in package-lock.json so that the output is reproducible; the drift
// test (test/bindings/grpc/generated-code.test.ts) renders it again and compares.
//
// Usage: node scripts/generate-grpc.mjs [outDir]   (default src/bindings/grpc/generated)
//
// buf reads one directory as its module: the proto files are copied into a temporary one, so that
// the repository needs no buf.yaml and spec/ stays a verbatim copy of the team's spec.
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const outDir = resolve(process.argv[2] ?? join(root, 'src/bindings/grpc/generated'));

const work = mkdtempSync(join(tmpdir(), 'tandem-grpc-gen-'));
try {
  const module = join(work, 'proto');
  cpSync(join(root, 'proto'), module, { recursive: true });
  cpSync(join(root, 'spec/a2a.proto'), join(module, 'a2a.proto'));
  // The 0.3 proto (package a2a.v1) for the 0.3 gRPC service of `--compat 0.3`; its own folder, so
  // that its file name does not clash with the 1.0 one.
  mkdirSync(join(module, 'v0_3'));
  cpSync(join(root, 'spec/v0.3/a2a.proto'), join(module, 'v0_3/a2a.proto'));
  const template = {
    version: 'v2',
    plugins: [
      {
        local: join(root, 'node_modules/.bin/protoc-gen-es'),
        out: join(work, 'out'),
        opt: ['target=ts', 'import_extension=js'],
        include_imports: false,
      },
    ],
  };
  execFileSync(
    join(root, 'node_modules/.bin/buf'),
    ['generate', module, '--template', JSON.stringify(template)],
    { cwd: work, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  rmSync(outDir, { recursive: true, force: true });
  cpSync(join(work, 'out'), outDir, { recursive: true });
  // Every generated file is checked by tsc like the rest, under the repository's strict options;
  // protoc-gen-es writes code that passes them, but marks each file for eslint to skip.
  for (const file of listFiles(outDir)) {
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace(/\r\n/g, '\n'));
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

function listFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}
