/**
 * Push notifications in `tandem serve`: on by default (the card says
 * `capabilities.pushNotifications: true`), `--no-push` turns them off. Webhooks to private,
 * loopback, link-local and metadata addresses are refused unless admitted with `--push-allow`
 * (repeatable, env `TANDEM_PUSH_ALLOW` comma-separated); see docs/deploy.md.
 */

import {
  createPushNotifier,
  type CompatLayer,
  type Logger,
  type PushNotifier,
  type PushNotifierOptions,
  type TaskRuntime,
} from '../../server.js';
import { parseDuration, parsePositiveInteger, UsageFailure } from '../cli-values.js';
import type { ServeOptionGroup } from './option-group.js';

/** The `parseArgs` options this module reads. */
export const PUSH_OPTIONS = {
  'no-push': { type: 'boolean' },
  'push-allow': { type: 'string', multiple: true },
  'push-timeout': { type: 'string' },
  'push-retry': { type: 'string' },
  'push-status-only': { type: 'boolean' },
  'push-coalesce': { type: 'boolean' },
  'push-max-configs': { type: 'string' },
} as const;

/** The help lines of {@link PUSH_OPTIONS}. */
export const PUSH_HELP = `Push notifications (webhooks; on by default):
  --no-push               Turn them off (push operations answer PushNotificationNotSupportedError)
  --push-allow <dest>     Admit a private or local destination: a host name, an address or a CIDR
                          range; repeatable (env TANDEM_PUSH_ALLOW, comma-separated)
  --push-timeout <dur>    How long a webhook has to answer, 10s to 30s (default 15s)
  --push-retry <dur>      First retry delay, doubled per failure with jitter (default 1s)
  --push-status-only      Deliver only task snapshots and status updates
  --push-coalesce         Send consecutive chunks of one artifact as one update
  --push-max-configs <n>  Most push configs one task may have (default 10, env TANDEM_PUSH_MAX_CONFIGS)`;

type Values = {
  readonly 'no-push'?: boolean | undefined;
  readonly 'push-allow'?: string[] | undefined;
  readonly 'push-timeout'?: string | undefined;
  readonly 'push-retry'?: string | undefined;
  readonly 'push-status-only'?: boolean | undefined;
  readonly 'push-coalesce'?: boolean | undefined;
  readonly 'push-max-configs'?: string | undefined;
};

/** What the flags ask for: `undefined` when push is off. */
export type ServePush = Omit<PushNotifierOptions, 'runtime' | 'logger'> | undefined;

/** @throws UsageFailure for a flag that does not parse, or push flags with `--no-push`. */
export function parseServePush(values: Values): ServePush {
  const tuned = (
    [
      'push-allow',
      'push-timeout',
      'push-retry',
      'push-status-only',
      'push-coalesce',
      'push-max-configs',
    ] as const
  ).filter((name) => values[name] !== undefined);
  if (values['no-push'] === true) {
    if (tuned.length > 0) throw new UsageFailure(`--${tuned[0]} has no effect with --no-push`);
    return undefined;
  }
  const fromEnv = (process.env.TANDEM_PUSH_ALLOW ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const allow = [...fromEnv, ...(values['push-allow'] ?? [])];
  const options: { -readonly [K in keyof NonNullable<ServePush>]: NonNullable<ServePush>[K] } = {
    allow,
  };
  if (values['push-timeout'] !== undefined) {
    const ms = parseDuration(values['push-timeout'], '--push-timeout');
    if (ms < 10_000 || ms > 30_000) {
      throw new UsageFailure(
        `--push-timeout must be between 10s and 30s, got ${values['push-timeout']}`,
      );
    }
    options.timeoutMs = ms;
  }
  if (values['push-retry'] !== undefined) {
    options.retry = { baseMs: Math.max(1, parseDuration(values['push-retry'], '--push-retry')) };
  }
  if (values['push-status-only'] === true) options.statusOnly = true;
  if (values['push-coalesce'] === true) options.coalesceArtifacts = true;
  const maxConfigs = values['push-max-configs'] ?? process.env.TANDEM_PUSH_MAX_CONFIGS;
  if (maxConfigs !== undefined) {
    options.maxConfigsPerTask = parsePositiveInteger(maxConfigs, '--push-max-configs');
  }
  return options;
}

/** Starts push delivery over `runtime` when the flags ask for it. */
export function startServePush(
  push: ServePush,
  runtime: TaskRuntime,
  logger: Logger,
  compat?: CompatLayer,
): PushNotifier | undefined {
  if (push === undefined) return undefined;
  const notifier = createPushNotifier({ ...push, runtime, logger, compat });
  if ((push.allow ?? []).length > 0) {
    logger.info({ allow: push.allow }, 'push webhooks may reach these private destinations');
  }
  return notifier;
}

/** The push flags: on by default, `undefined` with `--no-push`. */
export const PUSH_GROUP = {
  options: PUSH_OPTIONS,
  help: PUSH_HELP,
  parse: parseServePush,
} satisfies ServeOptionGroup<Values, ServePush>;
