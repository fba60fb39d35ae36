// Writes the V8 code cache of one CLI bundle (`node scripts/bundle-cli-cache.cjs dist/cli/serve.cjs`
// writes `serve.cjs.cache`), read by scripts/bundle-cli-loader.cjs. The bundle is run first, so
// that the cache holds compiled code and not only the parse: its top level, and for `serve.cjs` a
// warm-up start — the echo agent on the memory store, on loopback, answering one SendMessage — so
// that what every start and first request compile is in the cache too. A warm-up that fails
// leaves a cache of the top level only (and says why); the build goes on.
// Run in a process of its own, with no V8 flags: V8 accepts a cache only under the flags it was
// made with, and `tandem` runs with none.
'use strict';

const { writeFileSync } = require('node:fs');
const { request } = require('node:http');
const { createServer } = require('node:net');
const { basename, resolve } = require('node:path');
const { compileBundle, runBundle } = require('./bundle-cli-loader.cjs');

const WARM_UP_TIMEOUT_MS = 20_000;

/** A port free on loopback now. */
function freePort() {
  return new Promise((done, fail) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => done(port));
    });
    probe.once('error', fail);
  });
}

/** One SendMessage to the server on `port`; resolves with the answer's text, rejects on a socket error. */
function sendMessage(port) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: { message: { messageId: 'warm-up', role: 'ROLE_USER', parts: [{ text: 'echo hi' }] } },
  });
  const headers = { 'content-type': 'application/json', 'a2a-version': '1.0' };
  return new Promise((done, fail) => {
    const outgoing = request({ host: '127.0.0.1', port, path: '/a2a', method: 'POST', headers });
    outgoing.once('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => done(text));
    });
    outgoing.once('error', fail);
    outgoing.end(body);
  });
}

/** Starts `tandem serve` from the bundle and waits for its first answer. */
async function warmUpServe(serve) {
  const port = await freePort();
  const args = [
    '--agent',
    'echo',
    '--store',
    'memory',
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
  ];
  const exited = serve.run([...args, '--log-level', 'silent']).then((code) => {
    throw new Error(`tandem serve exited with ${code} during the warm-up`);
  });
  const deadline = Date.now() + WARM_UP_TIMEOUT_MS;
  for (;;) {
    const answer = await Promise.race([
      sendMessage(port).catch((error) => {
        if (error.code !== 'ECONNREFUSED' || Date.now() > deadline) throw error;
        return undefined;
      }),
      exited,
    ]);
    if (answer !== undefined) {
      if (!answer.includes('TASK_STATE_COMPLETED')) throw new Error(`unexpected answer: ${answer}`);
      return;
    }
    await new Promise((wait) => setTimeout(wait, 5));
  }
}

const WARM_UPS = { 'serve.cjs': warmUpServe };

async function main() {
  const file = resolve(process.argv[2]);
  const script = compileBundle(file);
  const bundle = runBundle(file, script);
  const warmUp = WARM_UPS[basename(file)];
  if (warmUp !== undefined) {
    try {
      await warmUp(bundle);
    } catch (error) {
      console.warn(
        `${basename(file)}: warm-up failed, caching the top level only: ${error.message}`,
      );
    }
  }
  writeFileSync(`${file}.cache`, script.createCachedData());
  // The warmed-up server is still listening: this process only existed to make the cache.
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
