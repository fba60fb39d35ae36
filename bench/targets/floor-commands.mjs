/** The commands of bench-agent.md as the floor reads them, for each of its transports. */

/** Reads `stream <n> <bytes>` / `slowstream <n> <ms> [bytes]`; undefined when malformed. */
export function streamPlan(words) {
  const [command, a, b, c] = words;
  const n = Number(a);
  if (command === 'stream' && words.length === 3) return { n, bytes: Number(b), delayMs: 0 };
  if (command === 'slowstream' && (words.length === 3 || words.length === 4)) {
    return { n, delayMs: Number(b), bytes: c === undefined ? 64 : Number(c) };
  }
  return undefined;
}

/** A plan that can run: every number a non-negative number. */
export function isRunnable(plan) {
  return plan !== undefined && plan.n >= 0 && plan.bytes >= 0 && plan.delayMs >= 0;
}
