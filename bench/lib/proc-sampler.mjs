/**
 * Reads a server's CPU time and resident memory from /proc while a scenario runs, and the
 * harness's own CPU time alongside, so that a run where the server was not the bottleneck (or
 * where something else competed for its core) is visible in the results rather than hidden in a
 * ratio. Linux only; elsewhere the readings are NaN and the report says "n/a".
 */

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

let clockTicks;

/** Kernel clock ticks per second, the unit of utime/stime in /proc/<pid>/stat. */
function ticksPerSecond() {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** CPU seconds (user + system, all threads) the process has used; NaN when unreadable. */
export function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is parenthesised and may hold spaces: count from its end.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond();
  } catch {
    return Number.NaN;
  }
}

/** Resident set size in bytes (VmRSS); NaN when unreadable. */
export function rssBytes(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
    return match === null ? Number.NaN : Number(match[1]) * 1024;
  } catch {
    return Number.NaN;
  }
}

/**
 * Samples RSS every `intervalMs` and brackets CPU time between `start()` and `stop()`.
 * `stop()` returns the server's CPU% (100 = one core busy), the harness's CPU%, the peak RSS
 * and the timestamped RSS samples (for scenarios that need RSS at a given moment).
 */
export class ProcSampler {
  #pid;
  #intervalMs;
  #timer;
  #t0 = 0;
  #cpu0 = 0;
  #self0 = process.cpuUsage();
  /** @type {{atMs: number, rss: number}[]} */
  samples = [];

  constructor(pid, intervalMs = 100) {
    this.#pid = pid;
    this.#intervalMs = intervalMs;
  }

  start() {
    this.samples = [];
    this.#t0 = performance.now();
    this.#cpu0 = cpuSeconds(this.#pid);
    this.#self0 = process.cpuUsage();
    this.#sample();
    this.#timer = setInterval(() => this.#sample(), this.#intervalMs);
    this.#timer.unref();
    return this;
  }

  #sample() {
    this.samples.push({ atMs: performance.now() - this.#t0, rss: rssBytes(this.#pid) });
  }

  /** Milliseconds since `start()`, on the clock of the samples. */
  elapsedMs() {
    return performance.now() - this.#t0;
  }

  stop() {
    clearInterval(this.#timer);
    this.#sample();
    const wallSeconds = (performance.now() - this.#t0) / 1000;
    const self = process.cpuUsage(this.#self0);
    const rss = this.samples.map((s) => s.rss).filter(Number.isFinite);
    const serverCpuSeconds = cpuSeconds(this.#pid) - this.#cpu0;
    return {
      serverCpuPct: (serverCpuSeconds / wallSeconds) * 100,
      serverCpuSeconds,
      harnessCpuPct: ((self.user + self.system) / 1e6 / wallSeconds) * 100,
      serverRssPeak: rss.length === 0 ? Number.NaN : Math.max(...rss),
      wallSeconds,
    };
  }
}
