/**
 * `checkAgent(url, options)`: finds the agent's card, reads which interfaces it declares, checks
 * the card and every interface the options leave in, and returns the report. The agent's defects
 * are results, never exceptions; the promise rejects only when there is nothing to check (the
 * card cannot be fetched at all: `AgentUnreachableError`), when the options are wrong
 * (`ConfigurationError`), or when the caller's signal aborts.
 */

import { isIP } from 'node:net';
import { applyAuth, type AppliedAuth } from '../client/client-auth.js';
import { ConfigurationError } from '../protocol/local-errors.js';
import { integerOption } from '../protocol/integer-option.js';
import { discoverCard } from './card-discovery.js';
import { viewCard, type CardView } from './card-view.js';
import { reportOf } from './check-report.js';
import { runChecks } from './check-runner.js';
import type {
  CheckBindingName,
  CheckOptions,
  CheckProtocolVersion,
  CheckReport,
} from './check-types.js';
import type { ProbeTarget } from './probe/probe.js';
import type { ProbeEnvironment } from './probe/probe-environment.js';
import { PushReceiver } from './push-receiver.js';
import type { Unavailable } from './verdict.js';
import { GrpcWire } from './wire/grpc-wire.js';
import { HttpWire } from './wire/http-wire.js';
import { Secrets } from './wire/wire-exchange.js';

/** The default time limit of one request. */
export const DEFAULT_CHECK_TIMEOUT_MS = 10_000;

const BINDINGS: readonly CheckBindingName[] = ['JSONRPC', 'HTTP+JSON', 'GRPC'];
const VERSIONS: readonly CheckProtocolVersion[] = ['1.0', '0.3'];

function validate(options: CheckOptions): void {
  if (options.timeoutMs !== undefined) integerOption('timeoutMs', options.timeoutMs, 1, 'ms');
  for (const binding of options.bindings ?? []) {
    if (!BINDINGS.includes(binding)) {
      throw new ConfigurationError(
        `bindings: ${JSON.stringify(binding)} is not one of ${BINDINGS.join(', ')}`,
      );
    }
  }
  for (const version of options.versions ?? []) {
    if (!VERSIONS.includes(version)) {
      throw new ConfigurationError(
        `versions: ${JSON.stringify(version)} is not one of ${VERSIONS.join(', ')}`,
      );
    }
  }
  if (options.level !== undefined && !['must', 'should', 'may'].includes(options.level)) {
    throw new ConfigurationError(
      `level must be must, should or may; got ${JSON.stringify(options.level)}`,
    );
  }
}

/** The secrets of the options, to mask in the report. */
function secretsOf(options: CheckOptions, applied: AppliedAuth): Secrets {
  const secrets = new Secrets();
  const { bearerToken, apiKey } = options.auth ?? {};
  if (bearerToken !== undefined) secrets.addValue(bearerToken);
  if (apiKey !== undefined) secrets.addValue(apiKey.value);
  for (const [name] of applied.headers) secrets.addName(name);
  if (applied.query !== undefined) secrets.addName(applied.query[0]);
  return secrets;
}

/** The interfaces to check: the card's, as far as the checker speaks them and the options keep. */
function targetsOf(view: CardView, options: CheckOptions): ProbeTarget[] {
  const declared = view.interfaces.flatMap((entry) =>
    entry.binding !== undefined && entry.version !== undefined && entry.url !== undefined
      ? [{ binding: entry.binding, version: entry.version, url: entry.url, tenant: entry.tenant }]
      : [],
  );
  const targets = declared.filter(
    (t) =>
      (options.bindings === undefined || options.bindings.includes(t.binding)) &&
      (options.versions === undefined || options.versions.includes(t.version)),
  );
  if (
    targets.length === 0 &&
    declared.length > 0 &&
    (options.bindings !== undefined || options.versions !== undefined)
  ) {
    throw new ConfigurationError(
      `the card declares no interface of the bindings and versions asked for; it declares ${declared.map((t) => `${t.binding} ${t.version}`).join(', ')}`,
    );
  }
  return targets;
}

function isLoopback(url: string): boolean {
  let host: string;
  try {
    host = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? new URL(url).hostname : (url.split(':')[0] ?? '');
  } catch {
    return false;
  }
  host = host.replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/** The push receiver of a run, started on first use. */
function receiverOf(
  options: CheckOptions,
  targets: readonly ProbeTarget[],
  started: PushReceiver[],
): () => Promise<PushReceiver | Unavailable> {
  let receiver: Promise<PushReceiver | Unavailable> | undefined;
  return () => {
    receiver ??= (async () => {
      if (options.receiver === undefined && !targets.every((t) => isLoopback(t.url))) {
        return {
          unavailable:
            "the agent is not on this machine's loopback; give --receiver host:port, an address of this machine the agent can reach",
        };
      }
      const made = await PushReceiver.start(options.receiver);
      started.push(made);
      return made;
    })();
    return receiver;
  };
}

/**
 * Checks the A2A agent at `url` (its base URL or its card URL) against the specification and
 * returns the report. Nothing the agent does makes this throw: its defects are the report's
 * failures.
 *
 * @throws AgentUnreachableError when the card cannot be fetched at all.
 * @throws ConfigurationError for invalid options (a filter that names no check, a binding the
 *   card does not declare, an API key with nowhere to go).
 */
export async function checkAgent(url: string, options: CheckOptions = {}): Promise<CheckReport> {
  const started = Date.now();
  validate(options);
  const http = new HttpWire(options.tls);
  const receivers: PushReceiver[] = [];
  let grpc: GrpcWire | undefined;
  const signal = options.signal ?? new AbortController().signal;
  try {
    const headers = Object.entries(options.headers ?? {});
    const base: ProbeEnvironment = {
      http,
      // The card is fetched over HTTP; gRPC starts once the card says where it is.
      grpc: new GrpcWire(options.tls, url),
      secrets: secretsOf(options, { headers: [] }),
      credentials: { headers: [] },
      headers,
      timeoutMs: options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS,
      signal,
    };
    const discovered = await discoverCard(base, url);
    const view = viewCard(discovered);
    const credentials =
      options.auth === undefined ? { headers: [] } : applyAuth(options.auth, view.forAuth);
    grpc = new GrpcWire(options.tls, discovered.found?.url ?? url);
    const environment: ProbeEnvironment = {
      ...base,
      grpc,
      credentials,
      secrets: secretsOf(options, credentials),
    };
    const targets = targetsOf(view, options);
    const results = await runChecks({
      discovered,
      view,
      environment,
      options: { ...options, timeoutMs: environment.timeoutMs },
      targets,
      receiver: receiverOf(options, targets, receivers),
    });
    const versions = VERSIONS.filter((v) => targets.some((t) => t.version === v));
    return reportOf(
      {
        url,
        cardUrl: discovered.found?.url ?? discovered.fetches[0]?.url ?? url,
        ...(view.name === undefined ? {} : { name: view.name }),
        ...(view.description === undefined ? {} : { description: view.description }),
        ...(view.agentVersion === undefined ? {} : { agentVersion: view.agentVersion }),
      },
      versions.length > 0 ? versions : [discovered.form],
      BINDINGS.filter((b) => targets.some((t) => t.binding === b)),
      results,
      Date.now() - started,
    );
  } finally {
    grpc?.close();
    await Promise.all([http.close(), ...receivers.map((r) => r.close())]);
  }
}
