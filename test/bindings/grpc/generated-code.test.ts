/**
 * The drift test of the gRPC binding's generated code: `scripts/generate-grpc.mjs` renders
 * src/bindings/grpc/generated/ again from spec/a2a.proto and proto/ (with the buf and
 * protoc-gen-es pinned in package-lock.json), and the result must equal what is committed. Also
 * checks that the generated service is the proto's, method by method.
 */

import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { GRPC_METHODS } from '../../../src/bindings/grpc/grpc-codec.js';
import { OPERATION_NAMES, operations } from '../../../src/protocol/operations.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const COMMITTED = join(ROOT, 'src/bindings/grpc/generated');

async function filesOf(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(relative(dir, path), await readFile(path, 'utf8'));
  }
  return files;
}

it('the committed generated code is what scripts/generate-grpc.mjs renders', async () => {
  const out = await mkdtemp(join(tmpdir(), 'tandem-grpc-drift-'));
  try {
    execFileSync(process.execPath, [join(ROOT, 'scripts/generate-grpc.mjs'), out], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const fresh = await filesOf(out);
    const committed = await filesOf(COMMITTED);
    expect([...committed.keys()].sort()).toEqual([...fresh.keys()].sort());
    for (const [name, text] of fresh) {
      expect(committed.get(name), `${name} differs: run node scripts/generate-grpc.mjs`).toBe(text);
    }
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}, 60_000);

it('serves every operation of the proto with its request, response and streaming', () => {
  expect([...GRPC_METHODS.keys()]).toEqual(OPERATION_NAMES);
  for (const method of GRPC_METHODS.values()) {
    const descriptor = operations[method.operation];
    expect(method.path).toBe(`/lf.a2a.v1.A2AService/${method.operation}`);
    expect(method.streaming).toBe(descriptor.streaming);
    expect(method.request.typeName).toBe(`lf.a2a.v1.${descriptor.requestType}`);
    const response =
      descriptor.responseType === 'Empty'
        ? 'google.protobuf.Empty'
        : `lf.a2a.v1.${descriptor.responseType}`;
    expect(method.response.typeName).toBe(response);
  }
});
