#!/usr/bin/env node
/**
 * The benchmark suite of issue #6: checks each target against bench-agent.md, runs every scenario
 * against every target it applies to — a fresh server process per measurement, targets in
 * alternating order round after round — and writes the results as JSON and Markdown.
 *
 * Usage: `npm run bench -- [--quick] [options]`; `node bench/run.mjs --help` lists the options.
 * Progress goes to stderr, the Markdown report to stdout.
 */

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem, type } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { HELP, UsageError, parseOptions } from './lib/options.mjs';
import { ProcSampler } from './lib/proc-sampler.mjs';
import { ensureBenchDatabase, POSTGRES_URL, PostgresSampler } from './lib/pg-sampler.mjs';
import { evaluateGoals, renderMarkdown, summarize } from './lib/report.mjs';
import { grpcSmokeCheck } from './lib/grpc-smoke.mjs';
import { restSmokeCheck } from './lib/rest-smoke.mjs';
import { smokeCheck } from './lib/smoke.mjs';
import {
  ROOT,
  TANDEM_MAIN,
  TARGETS,
  detectPinning,
  pinHarness,
  startTarget,
} from './lib/targets.mjs';
import { SCENARIOS } from './scenarios/index.mjs';

const log = (line) => process.stderr.write(`${line}\n`);

function loadAverage() {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

function describeMachine() {
  const cpu = cpus();
  return {
    cpuModel: cpu[0]?.model.trim() ?? 'unknown CPU',
    cpus: cpu.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os: `${type()} ${release()}`,
    node: process.version,
    loadAverageStart: loadAverage(),
    loadAverageEnd: '',
  };
}

/**
 * Starts the target, checks it against bench-agent.md over JSON-RPC and over each binding in
 * `transports` (`rest`, `grpc`: those of the scenarios it will run), and stops it again. A
 * binding this build of the target cannot serve is reported as unavailable, not checked; a
 * target that does not start with gRPC is refused over gRPC only, and checked again without it.
 */
async function smokeTarget(target, pinning, transports) {
  const checked = {};
  const grpcUnavailable = transports.has('grpc') ? target.grpc?.unavailable() : undefined;
  if (grpcUnavailable !== undefined) checked.grpc = { ok: false, unavailable: grpcUnavailable };
  let grpc = transports.has('grpc') && grpcUnavailable === undefined;
  let server;
  if (grpc) {
    try {
      server = await startTarget(target, { pinning, grpc });
    } catch (error) {
      const detail = error.message;
      checked.grpc = {
        ok: false,
        checks: [{ point: '1', name: 'starts serving gRPC on its port', ok: false, detail }],
      };
      grpc = false;
    }
  }
  server ??= await startTarget(target, { pinning });
  try {
    const smoke = await smokeCheck(server);
    if (transports.has('rest')) checked.rest = await restSmokeCheck(server);
    if (grpc) checked.grpc = await grpcSmokeCheck(server);
    const exit = await server.stop();
    if (exit.killed) {
      smoke.checks.push({
        point: '9',
        name: 'exits within 5 s of SIGTERM',
        ok: true,
        detail: 'warning: it did not, and was killed',
      });
    }
    return {
      smoke,
      transports: checked,
      rpcPath: new URL(server.rpcUrl).pathname + new URL(server.rpcUrl).search,
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** One measurement: a fresh server (unless the scenario spawns its own), the scenario, stop. */
async function measureOnce(scenario, target, context) {
  const { config, pinning, rpcPath, profileDir } = context;
  if (scenario.spawnsItself) return scenario.measure({ target, config, pinning, rpcPath });
  const nodeFlags = profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
  const server = await startTarget(target, {
    pinning,
    nodeFlags,
    grpc: scenario.transport === 'grpc',
  });
  try {
    const sampler = target.postgres
      ? new PostgresSampler(server.pid, server.countsFile)
      : new ProcSampler(server.pid);
    return await scenario.measure({ server, config, sampler });
  } finally {
    const exit = await server.stop();
    if (exit.killed)
      log(`  warning: ${target.label} did not exit within 5 s of SIGTERM and was killed`);
  }
}

async function main(argv) {
  let options;
  try {
    options = parseOptions(
      argv,
      SCENARIOS.map((s) => s.id),
    );
  } catch (error) {
    if (!(error instanceof UsageError) && !String(error?.code).startsWith('ERR_PARSE_ARGS'))
      throw error;
    log(`bench: ${error.message}\nRun \`node bench/run.mjs --help\` for the options.`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  if (options.targets.some((id) => id.startsWith('tandem')) && !existsSync(TANDEM_MAIN)) {
    log(
      `bench: ${TANDEM_MAIN} is missing; build Tandem first with \`npm run build\` (or use \`npm run bench\`).`,
    );
    return 2;
  }

  if (options.targets.some((id) => TARGETS[id]?.postgres)) {
    try {
      ensureBenchDatabase();
    } catch (error) {
      log(
        `bench: PostgreSQL at ${POSTGRES_URL} does not answer (${String(error?.message ?? error).split('\n')[0]}); its targets are skipped`,
      );
      options.targets = options.targets.filter((id) => !TARGETS[id]?.postgres);
    }
  }
  const pinning = options.pin ? detectPinning() : null;
  if (pinning !== null) pinHarness(pinning);
  const startedAt = new Date();
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  const out = options.out ?? join(ROOT, 'bench/results', `${stamp}.json`);
  const results = {
    version: 1,
    mode: options.mode,
    startedAt: startedAt.toISOString(),
    command: ['node', 'bench/run.mjs', ...argv].join(' '),
    machine: describeMachine(),
    pinning,
    config: options.config,
    targets: {},
    scenarios: [],
    goals: [],
  };
  log(
    `bench: ${options.mode} run; pinning ${pinning === null ? 'off' : `server core ${pinning.serverCore}, harness core ${pinning.harnessCore}`}`,
  );

  const selected = SCENARIOS.filter((s) => options.scenarios.includes(s.id));
  const accepted = [];
  let transportRefused = false;
  for (const id of options.targets) {
    const target = TARGETS[id];
    const transports = new Set(
      selected
        .filter((s) => s.transport !== undefined && s.appliesTo.includes(id))
        .map((s) => s.transport),
    );
    try {
      const checked = await smokeTarget(target, pinning, transports);
      const { smoke, rpcPath } = checked;
      results.targets[id] = { label: target.label, rpcPath, smoke, transports: checked.transports };
      if (smoke.ok) accepted.push(id);
      log(`smoke ${id}: ${smoke.ok ? 'pass' : 'REFUSED'}`);
      for (const check of smoke.checks.filter((c) => !c.ok))
        log(`  point ${check.point}: ${check.name}: ${check.detail}`);
      for (const [transport, result] of Object.entries(checked.transports)) {
        if (result.unavailable !== undefined) {
          log(`smoke ${id} ${transport}: not available (${result.unavailable})`);
          continue;
        }
        if (!result.ok) transportRefused = true;
        log(`smoke ${id} ${transport}: ${result.ok ? 'pass' : 'REFUSED'}`);
        for (const check of result.checks.filter((c) => !c.ok))
          log(`  point ${check.point}: ${check.name}: ${check.detail}`);
      }
    } catch (error) {
      results.targets[id] = {
        label: target.label,
        smoke: {
          ok: false,
          checks: [
            { point: '1', name: 'starts and serves its card', ok: false, detail: error.message },
          ],
        },
      };
      log(`smoke ${id}: REFUSED (${error.message})`);
    }
  }

  for (const definition of selected) {
    // A target is measured over a binding only when it passed that binding's smoke checks; one
    // whose build cannot serve the binding gets a row saying so.
    const transportOf = (id) =>
      definition.transport === undefined
        ? { ok: true }
        : results.targets[id].transports?.[definition.transport];
    const targets = accepted.filter(
      (id) =>
        definition.appliesTo.includes(id) &&
        (transportOf(id)?.ok || transportOf(id)?.unavailable !== undefined),
    );
    if (targets.length === 0) continue;
    const title = definition.title(options.config);
    const rounds = [];
    for (let round = 1; round <= options.config.rounds; round++) {
      // A B, then B A: whatever drifts during a round (heat, caches, noise) hits both sides.
      const order = round % 2 === 1 ? targets : [...targets].reverse();
      const measurements = {};
      for (const id of order) {
        const unavailable = transportOf(id).unavailable;
        if (unavailable !== undefined) {
          measurements[id] = { unavailable };
          continue;
        }
        log(`${title} — round ${round}/${options.config.rounds}: ${id}`);
        const profileDir = options.profile
          ? join(dirname(out), `${stamp}-profiles`, `${definition.id}-${id}-r${round}`)
          : undefined;
        try {
          measurements[id] = await measureOnce(definition, TARGETS[id], {
            config: options.config,
            pinning,
            rpcPath: results.targets[id].rpcPath,
            profileDir,
          });
        } catch (error) {
          measurements[id] = { error: error.message };
          log(`  failed: ${error.message}`);
        }
      }
      rounds.push({ round, order, measurements });
    }
    results.scenarios.push({
      id: definition.id,
      key: definition.key,
      title,
      rounds,
      summary: summarize(
        definition,
        rounds,
        results.scenarios.find((s) => s.id === definition.base?.scenario)?.rounds,
      ),
    });
  }

  results.goals = evaluateGoals(results);
  results.finishedAt = new Date().toISOString();
  results.machine.loadAverageEnd = loadAverage();
  const markdown = renderMarkdown(results, SCENARIOS);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(out.replace(/\.json$/, '') + '.md', markdown);
  process.stdout.write(markdown);
  log(`bench: results in ${relative(process.cwd(), out)} (and .md)`);
  return accepted.length === options.targets.length && !transportRefused ? 0 : 1;
}

process.exitCode = await main(process.argv.slice(2));
