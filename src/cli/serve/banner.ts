/**
 * What `tandem serve` tells a person once it listens: where each agent's card is, and the gRPC
 * address. On a terminal it goes to stdout beside the pretty log; otherwise stdout carries the
 * JSON log lines only (log shippers read it line by line) and the banner goes to stderr.
 *
 * A server bound to a non-loopback address without authentication is open to every caller as one
 * principal: that is logged as a warning, and the banner names a URL other machines can use (the
 * listened URL of a wildcard bind is the loopback one).
 */

import { networkInterfaces } from 'node:os';
import type { A2AServerAddress, Logger } from '../../server.js';
import { describeTaskStoreSpec } from '../../stores.js';
import type { ServeOptions } from './options.js';

/** Whether `host` is reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d+\.\d+\.\d+$/.test(bare);
}

/** Whether `host` binds every address of the machine. */
function isWildcardHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  return bare === '0.0.0.0' || bare === '::' || bare === '';
}

/** The machine's first non-internal IPv4 address, for a URL others can use; else undefined. */
function machineAddress(): string | undefined {
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) {
      if (!entry.internal && entry.family === 'IPv4') return entry.address;
    }
  }
  return undefined;
}

/** Logs, before anything starts, that an open bind without `--auth` shares every task. */
export function warnIfOpen(options: ServeOptions, logger: Logger): void {
  if (isLoopbackHost(options.host) || options.security.authentication !== undefined) return;
  logger.warn(
    { host: options.host },
    'listening beyond this machine without --auth: every caller shares one anonymous principal and sees every task; add --auth (docs/deploy.md)',
  );
}

/** The URL other machines reach a wildcard bind at, when the banner should name it. */
function remoteUrl(options: ServeOptions, listened: string): string | undefined {
  if (options.publicUrl !== undefined || !isWildcardHost(options.host)) return undefined;
  const address = machineAddress();
  if (address === undefined) return undefined;
  const url = new URL(listened);
  url.hostname = address;
  return url.toString().replace(/\/+$/, '');
}

/** The agent's path: the root for a single agent, `/agents/<name>` for several. */
export function pathOf(options: ServeOptions, name: string): string {
  return options.agents.length === 1 ? '' : `/agents/${name}`;
}

/** Logs that the server serves, and prints where each agent's card is, and the gRPC address. */
export function announce(
  options: ServeOptions,
  address: A2AServerAddress,
  logger: Logger,
  metricsPort?: number,
): void {
  const listened = address.http?.url ?? '';
  const base = options.publicUrl?.replace(/\/+$/, '') ?? listened.replace(/\/+$/, '');
  const remote = remoteUrl(options, base);
  logger.info(
    {
      url: base,
      ...(remote === undefined ? {} : { remoteUrl: remote }),
      store: describeTaskStoreSpec(options.store),
      agents: options.agents,
    },
    'tandem is serving',
  );
  const lines = [`Tandem is serving ${options.agents.join(', ')} at ${base}`];
  if (remote !== undefined) lines.push(`  from other machines: ${remote} (or --public-url)`);
  const several = options.agents.length > 1;
  for (const [i, name] of options.agents.entries()) {
    const root = i === 0 && several ? ` (also ${base}/.well-known/agent-card.json)` : '';
    const card = `${base}${pathOf(options, name)}/.well-known/agent-card.json`;
    lines.push(`  ${name.padEnd(12)} ${card}${root}`);
  }
  if (address.grpc !== undefined) lines.push(`  gRPC         ${address.grpc.address}`);
  if (metricsPort !== undefined) {
    lines.push(`  metrics      http://${options.host}:${metricsPort}/metrics`);
  }
  // Not a terminal: stdout is for the JSON log lines only.
  const out = process.stdout.isTTY ? process.stdout : process.stderr;
  out.write(`${lines.join('\n')}\n`);
}
