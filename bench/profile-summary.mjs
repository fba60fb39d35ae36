#!/usr/bin/env node
/**
 * Summarizes a V8 CPU profile (`node --cpu-prof`, or `bench/run.mjs --profile`) as the functions
 * with the most self time, and the files (packages, Node internals, Tandem's modules) with the
 * most. A first look before opening the profile in a viewer (Chrome DevTools, speedscope).
 *
 * Usage: node bench/profile-summary.mjs <file.cpuprofile> [--top 25]
 */

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  options: { top: { type: 'string', default: '25' } },
  allowPositionals: true,
});
if (positionals.length !== 1) {
  process.stderr.write('Usage: node bench/profile-summary.mjs <file.cpuprofile> [--top 25]\n');
  process.exit(2);
}
const top = Number(values.top);
// Piped into `head`, stdout closes early: that is the reader's choice, not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});
const profile = JSON.parse(readFileSync(positionals[0], 'utf8'));

// Self time per node: each sample is attributed to the node on top of the stack, and lasts
// until the next sample (timeDeltas[i] is the gap before sample i).
const selfUs = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  const delta = profile.timeDeltas[i + 1] ?? 0;
  selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + delta);
}
const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0);

/** A short location: the package or the path below the repository, and the line. */
function where(frame) {
  const url = frame.url.replace(/^file:\/\//, '');
  if (url === '') return '';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(url);
  const file = pkg === null ? url.replace(/^.*\/(dist|src|bench)\//, '$1/') : `${pkg[1]}:${pkg[2]}`;
  return `${file}:${frame.lineNumber + 1}`;
}

const byFunction = new Map();
const byFile = new Map();
for (const node of profile.nodes) {
  const us = selfUs.get(node.id) ?? 0;
  if (us === 0) continue;
  const frame = node.callFrame;
  const name = `${frame.functionName || '(anonymous)'} ${where(frame)}`.trim();
  byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  const file = where(frame).replace(/:\d+$/, '') || frame.functionName;
  byFile.set(file, (byFile.get(file) ?? 0) + us);
}

function print(title, map) {
  process.stdout.write(`\n${title}\n`);
  const rows = [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [name, us] of rows) {
    process.stdout.write(
      `${((us / totalUs) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(1).padStart(8)} ms  ${name}\n`,
    );
  }
}

process.stdout.write(`${positionals[0]}: ${(totalUs / 1000).toFixed(0)} ms sampled\n`);
print('Self time by function', byFunction);
print('Self time by file', byFile);
