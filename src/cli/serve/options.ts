/**
 * The flags of `tandem serve`: its own (where to listen, the store, logging, timing) and the
 * groups' (`option-group.ts`), read into one {@link ServeOptions}. Every value is checked here,
 * before anything starts: a mistake is a `UsageFailure` naming the flag.
 */

import { parseArgs } from 'node:util';
import { demoAgentNames } from '../../agents/index.js';
import { parseTaskStoreSpec, type LogLevel, type TaskStoreSpec } from '../../server.js';
import { parseDuration, UsageFailure } from '../cli-values.js';
import {
  AGENTS_GROUP,
  isServedAgentName,
  servedAgentNames,
  type ServedAgentName,
} from './agents.js';
import { COMPAT_GROUP } from './compat.js';
import { GRPC_GROUP } from './grpc.js';
import { LIMITS_GROUP } from './limits.js';
import { PREFERRED_BINDING_OPTIONS, parsePreferredBinding } from './preferred-binding.js';
import { PUSH_GROUP } from './push.js';
import { SECURITY_GROUP } from './security.js';
import { TELEMETRY_GROUP } from './telemetry.js';

/** `tandem serve`'s own flags. */
export const SERVE_OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'public-url': { type: 'string' },
  agent: { type: 'string', multiple: true },
  store: { type: 'string' },
  'log-level': { type: 'string' },
  retention: { type: 'string' },
  'orphan-timeout': { type: 'string' },
  'shutdown-timeout': { type: 'string' },
  heartbeat: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  ...PREFERRED_BINDING_OPTIONS,
} as const;

/** The groups, in the order of the help. */
export const SERVE_GROUPS = [
  SECURITY_GROUP,
  GRPC_GROUP,
  AGENTS_GROUP,
  LIMITS_GROUP,
  COMPAT_GROUP,
  PUSH_GROUP,
  TELEMETRY_GROUP,
] as const;

const ALL_OPTIONS = {
  ...SERVE_OPTIONS,
  ...SECURITY_GROUP.options,
  ...GRPC_GROUP.options,
  ...AGENTS_GROUP.options,
  ...LIMITS_GROUP.options,
  ...COMPAT_GROUP.options,
  ...PUSH_GROUP.options,
  ...TELEMETRY_GROUP.options,
} as const;

/** What the flags ask for. */
export interface ServeOptions {
  readonly port: number;
  readonly host: string;
  readonly publicUrl: string | undefined;
  readonly agents: readonly ServedAgentName[];
  readonly store: TaskStoreSpec;
  readonly logLevel: LogLevel;
  readonly retentionMs: number | undefined;
  readonly orphanTimeoutMs: number;
  readonly shutdownMs: number;
  readonly heartbeatMs: number;
  readonly preferredBinding: string | undefined;
  readonly grpcPort: number | undefined;
  readonly security: ReturnType<typeof SECURITY_GROUP.parse>;
  readonly agentSettings: Awaited<ReturnType<typeof AGENTS_GROUP.parse>>;
  readonly limits: ReturnType<typeof LIMITS_GROUP.parse>;
  readonly compat: ReturnType<typeof COMPAT_GROUP.parse>;
  readonly push: ReturnType<typeof PUSH_GROUP.parse>;
  readonly telemetry: ReturnType<typeof TELEMETRY_GROUP.parse>;
}

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

function envOr(name: string, fallback: string): string {
  const value = process.env[name];
  return value === undefined || value === '' ? fallback : value;
}

/**
 * Reads the flags; `{ help: true }` for `--help`.
 *
 * @throws UsageFailure (or a `parseArgs` error) naming the flag that is wrong.
 */
export async function parseServeArgs(
  args: string[],
): Promise<{ readonly help: true } | (ServeOptions & { readonly help: false })> {
  const { values } = parseArgs({
    args,
    options: ALL_OPTIONS,
    strict: true,
    allowPositionals: false,
  });
  const port = Number(values.port ?? envOr('PORT', '41241'));
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageFailure(`--port must be an integer between 0 and 65535, got ${values.port}`);
  }
  const named: readonly string[] = values.agent ?? demoAgentNames;
  for (const name of named) {
    if (!isServedAgentName(name)) {
      throw new UsageFailure(`Unknown agent "${name}"; available: ${servedAgentNames.join(', ')}`);
    }
  }
  const logLevel = values['log-level'] ?? envOr('TANDEM_LOG_LEVEL', 'info');
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new UsageFailure(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got ${logLevel}`);
  }
  const publicUrl = values['public-url'] ?? process.env.TANDEM_PUBLIC_URL;
  if (values.help === true) return { help: true };
  const agents = [...new Set(named)].filter(isServedAgentName);
  const grpcPort = GRPC_GROUP.parse(values);
  const context = { agents, grpc: grpcPort !== undefined };
  return {
    help: false,
    port,
    host: values.host ?? envOr('TANDEM_HOST', '127.0.0.1'),
    publicUrl: publicUrl === '' ? undefined : publicUrl,
    agents,
    store: parseTaskStoreSpec(values.store ?? envOr('TANDEM_STORE', 'sqlite:./tandem.db')),
    logLevel: logLevel as LogLevel,
    retentionMs:
      values.retention === undefined
        ? undefined
        : parseDuration(values.retention, '--retention', { minMs: 60_000 }),
    orphanTimeoutMs: parseDuration(values['orphan-timeout'] ?? '30s', '--orphan-timeout'),
    shutdownMs: parseDuration(values['shutdown-timeout'] ?? '10s', '--shutdown-timeout'),
    heartbeatMs: parseDuration(values.heartbeat ?? '15s', '--heartbeat', { minMs: 1000 }),
    preferredBinding: parsePreferredBinding(values, context.grpc),
    grpcPort,
    security: SECURITY_GROUP.parse(values, context),
    limits: LIMITS_GROUP.parse(values),
    compat: COMPAT_GROUP.parse(values),
    push: PUSH_GROUP.parse(values),
    telemetry: TELEMETRY_GROUP.parse(values),
    // Last: it reads the configuration files of the chat and orchestrator agents.
    agentSettings: await AGENTS_GROUP.parse(values, context),
  };
}
