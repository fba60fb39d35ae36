/**
 * `tandem check <url>`: the conformance checker (`tandem/check`) as a command for people and for
 * CI. It prints the report grouped by area (or the JSON document with `--json`), writes JUnit XML
 * with `--junit`, shows a progress line on a terminal while checks run, and exits 0 when no MUST
 * check failed, 1 when one did, 2 for a usage error, 3 when the agent could not be reached.
 *
 * It has its own frame rather than `runCommand`'s: its `--binding` takes several bindings (or
 * `all`), and its exit codes say how the agent did, not how one call went.
 */

import { createPublicKey } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { parseArgs } from 'node:util';
import {
  AgentUnreachableError,
  checkAgent,
  formatJsonReport,
  formatJUnitReport,
  type CheckBindingName,
  type CheckLevel,
  type CheckOptions,
  type CheckProtocolVersion,
  type CheckReport,
} from '../check.js';
import { ConfigurationError, type PublicJwk } from '../client.js';
import { parseAgentUrl, parseDuration, parseHeader, UsageFailure } from './cli-values.js';
import { clientCredentialsFrom } from './client-credentials.js';
import { clientTlsOf } from './client-tls.js';
import { failureOf } from './errors-to-exit.js';
import { ExitCode, INTERRUPTED_EXIT_CODE } from './exit-code.js';
import { onInterrupt } from './interrupts.js';
import { parseCommandLine } from './parse-command-line.js';
import { progressText, writeReport } from './render-check.js';
import { SHARED_HELP, SHARED_OPTIONS } from './shared-options.js';
import { Terminal } from './terminal.js';

/** The shared help without the entry of `--flag` (its line and the indented ones after it). */
function withoutSharedFlag(help: string, flag: string): string {
  return help.replace(new RegExp(`\\n {2}--${flag}\\b[^\\n]*(?:\\n {6,}[^\\n]*)*`), '');
}

const HELP = `Usage: tandem check <url> [options]

Checks the A2A agent at <url> (its base URL or its card URL; A2A 1.0 or 0.3) against the
specification: the card and its discovery, version negotiation, messages and tasks, streaming,
push notifications, the rules of each binding, and its errors. Every check has a stable id and
the level (MUST, SHOULD, MAY) and section of its requirement; docs/check.md lists them all.

Check options:
  --binding <binding>     jsonrpc | rest | grpc | all, repeatable or comma-separated
                          (default: every binding the card declares)
  --protocol <version>    1.0 | 0.3 | all: the protocol versions to speak (default: all declared)
  --only <id|section>     Run only these checks: ids (task.get-unknown), prefixes (task), areas
                          (streaming) or sections (3.1.5); repeatable or comma-separated
  --skip <id|section>     Leave these checks out (same forms)
  --level <level>         must | should | may: run checks of this level and stricter (default may)
  --safe                  Read only, for agents in production: send no message, create, cancel
                          or configure nothing; the checks that need a task are skipped
  --message <text>        The text to send (default: the card's first skill example, else "hello")
  --receiver <host:port>  Where the agent can reach this machine for push notifications (default:
                          127.0.0.1 when the agent runs on loopback; otherwise the check is skipped)
  --junit <file>          Also write the report as JUnit XML to <file>
  --trust-key <path>      A key trusted to sign the card (PEM, JWK or JWKS; repeatable)
  --timeout <duration>    Time limit of each request: a number and a unit (ms, s, m, h, d),
                          e.g. 5s (default 10s)

${withoutSharedFlag(withoutSharedFlag(SHARED_HELP, 'binding'), 'timeout')}

Exit codes: 0 no MUST check failed (warnings and skips allowed), 1 a MUST check failed,
2 usage error, 3 the agent could not be reached at all.`;

const OPTIONS = {
  ...SHARED_OPTIONS,
  binding: { type: 'string', multiple: true },
  protocol: { type: 'string', multiple: true },
  only: { type: 'string', multiple: true },
  skip: { type: 'string', multiple: true },
  level: { type: 'string' },
  safe: { type: 'boolean' },
  message: { type: 'string' },
  receiver: { type: 'string' },
  junit: { type: 'string' },
  'trust-key': { type: 'string', multiple: true },
} as const;

type Values = ReturnType<
  typeof parseArgs<{
    args: string[];
    options: typeof OPTIONS;
    strict: true;
    allowPositionals: true;
  }>
>['values'];

function list(values: readonly string[] | undefined): string[] {
  return (values ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

function bindingsOf(values: readonly string[] | undefined): CheckBindingName[] | undefined {
  const names = list(values);
  if (names.length === 0 || names.some((n) => n.toLowerCase() === 'all')) return undefined;
  return names.map((name) => {
    switch (name.toLowerCase()) {
      case 'jsonrpc':
      case 'json-rpc':
        return 'JSONRPC';
      case 'rest':
      case 'http+json':
        return 'HTTP+JSON';
      case 'grpc':
        return 'GRPC';
      default:
        throw new UsageFailure(`--binding must be jsonrpc, rest, grpc or all, got "${name}"`);
    }
  });
}

function versionsOf(values: readonly string[] | undefined): CheckProtocolVersion[] | undefined {
  const names = list(values);
  if (names.length === 0 || names.includes('all')) return undefined;
  return names.map((name) => {
    if (name === '1.0' || name === '0.3') return name;
    throw new UsageFailure(`--protocol must be 1.0, 0.3 or all, got "${name}"`);
  });
}

function levelOf(value: string | undefined): CheckLevel | undefined {
  if (value === undefined) return undefined;
  const level = value.toLowerCase();
  if (level === 'must' || level === 'should' || level === 'may') return level;
  throw new UsageFailure(`--level must be must, should or may, got "${value}"`);
}

/** The trusted keys of a file: a PEM public key, a JWK, or a JWKS. */
function keysOfFile(path: string): PublicJwk[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageFailure(
      `--trust-key ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
  if (text.includes('-----BEGIN')) {
    try {
      return [createPublicKey(text).export({ format: 'jwk' })];
    } catch {
      throw new UsageFailure(`--trust-key ${path} is not a PEM public key`);
    }
  }
  let parsed: { keys?: unknown; kty?: unknown } | undefined;
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    parsed = undefined;
  }
  if (Array.isArray(parsed?.keys)) return parsed.keys as PublicJwk[];
  if (typeof parsed?.kty === 'string') return [parsed as PublicJwk];
  throw new UsageFailure(`--trust-key ${path} is neither a PEM public key, a JWK nor a JWKS`);
}

/** Refuses a `--junit` path that cannot be written before the run, not after it. */
function junitPathOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const path = resolve(value);
  const directory = dirname(path);
  if (!existsSync(directory) || !statSync(directory).isDirectory()) {
    throw new UsageFailure(`--junit ${value}: the directory ${directory} does not exist`);
  }
  return path;
}

function optionsOf(values: Values, warn: (message: string) => void): CheckOptions {
  const headers: Record<string, string> = {};
  for (const line of values.header ?? []) {
    const [name, value] = parseHeader(line);
    headers[name] = value;
  }
  const { token, apiKey } = clientCredentialsFrom(values, warn);
  const auth = {
    ...(token === undefined ? {} : { bearerToken: token }),
    ...(apiKey === undefined ? {} : { apiKey: { value: apiKey } }),
  };
  const tls = clientTlsOf(values)?.tls;
  const bindings = bindingsOf(values.binding);
  const versions = versionsOf(values.protocol);
  const level = levelOf(values.level);
  const keys = (values['trust-key'] ?? []).flatMap(keysOfFile);
  const timeoutMs =
    values.timeout === undefined ? undefined : parseDuration(values.timeout, '--timeout');
  if (timeoutMs !== undefined && timeoutMs < 1)
    throw new UsageFailure('--timeout must be more than 0');
  return {
    ...(bindings === undefined ? {} : { bindings }),
    ...(versions === undefined ? {} : { versions }),
    ...(list(values.only).length === 0 ? {} : { only: list(values.only) }),
    ...(list(values.skip).length === 0 ? {} : { skip: list(values.skip) }),
    ...(level === undefined ? {} : { level }),
    ...(values.safe === true ? { safe: true } : {}),
    ...(values.message === undefined ? {} : { message: values.message }),
    ...(values.receiver === undefined ? {} : { receiver: values.receiver }),
    ...(Object.keys(auth).length === 0 ? {} : { auth }),
    ...(tls === undefined ? {} : { tls }),
    ...(Object.keys(headers).length === 0 ? {} : { headers }),
    ...(keys.length === 0 ? {} : { trust: { keys } }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  };
}

function usage(message: string): number {
  process.stderr.write(`tandem check: ${message}\nRun \`tandem check --help\` for the usage.\n`);
  return ExitCode.Usage;
}

/** Runs the command; resolves with the exit code. */
export async function run(args: string[]): Promise<number> {
  let values: Values;
  let url: string;
  let options: CheckOptions;
  let junit: string | undefined;
  try {
    const parsed = parseCommandLine({
      args,
      options: OPTIONS,
      strict: true,
      allowPositionals: true,
    });
    values = parsed.values;
    if (values.help === true) {
      process.stdout.write(`${HELP}\n`);
      return ExitCode.Success;
    }
    if (parsed.positionals.length === 0) throw new UsageFailure('missing <url>');
    if (parsed.positionals.length > 1)
      throw new UsageFailure(`unexpected argument "${parsed.positionals[1] ?? ''}"`);
    url = parseAgentUrl(parsed.positionals[0] ?? '');
    options = optionsOf(values, (message) =>
      process.stderr.write(`tandem check: warning: ${message}\n`),
    );
    junit = junitPathOf(values.junit);
  } catch (error) {
    return usage(error instanceof Error ? error.message : String(error));
  }

  const terminal = new Terminal({
    json: values.json === true,
    noColor: values['no-color'] === true,
  });
  const abort = new AbortController();
  const stopInterrupt = onInterrupt(() => abort.abort(new Error('interrupted')));
  let total = 0;
  let done = 0;
  let failed = 0;
  let report: CheckReport;
  try {
    terminal.activity('reading the agent card');
    report = await checkAgent(url, {
      ...options,
      signal: abort.signal,
      onPlan: (plan) => {
        total = plan.total;
      },
      onCheck: (result) => {
        done++;
        if (result.status === 'fail') failed++;
        terminal.activity(progressText({ done, total, failed, current: result }));
      },
    });
  } catch (error) {
    terminal.close();
    if (abort.signal.aborted) return INTERRUPTED_EXIT_CODE;
    if (error instanceof ConfigurationError) return usage(error.message);
    const message =
      error instanceof AgentUnreachableError ? error.message : failureOf(error).message;
    terminal.error(`tandem check: ${message}`);
    return ExitCode.Connection;
  } finally {
    stopInterrupt();
    terminal.activity(undefined);
  }
  if (terminal.json) terminal.write(formatJsonReport(report));
  else writeReport(terminal, report);
  if (junit !== undefined) {
    try {
      writeFileSync(junit, formatJUnitReport(report));
    } catch (error) {
      terminal.error(
        `tandem check: cannot write --junit ${junit}: ${error instanceof Error ? error.message : String(error)}`,
      );
      return ExitCode.Connection;
    }
  }
  terminal.close();
  return report.summary.failed > 0 ? ExitCode.TaskFailed : ExitCode.Success;
}
