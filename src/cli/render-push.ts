/**
 * Human output of `tandem push`: a push config, a table of them, and a config's delivery status.
 * Secrets of a config (its token, its credentials) are shown as "set", never printed: the output
 * of a command ends up in terminals' scrollback and in CI logs.
 */

import type { PushDeliveryStatusJson } from '../client.js';
import type { TaskPushNotificationConfig } from '../index.js';
import type { Terminal } from './terminal.js';

function authOf(config: TaskPushNotificationConfig): string {
  const auth = config.authentication;
  if (auth === undefined) return '-';
  return `${auth.scheme}${auth.credentials === undefined ? '' : ' (credentials set)'}`;
}

/** One config as `name value` lines; `verb` ("created") leads its first line. */
export function writePushConfig(
  terminal: Terminal,
  config: TaskPushNotificationConfig,
  verb: string | undefined,
): void {
  const { style } = terminal;
  const lead = verb === undefined ? '' : `${verb} `;
  terminal.line(
    `${lead}push config ${style.bold(config.id ?? '-')} of task ${config.taskId ?? '-'}`,
  );
  terminal.line(`  url    ${config.url}`);
  terminal.line(`  token  ${config.token === undefined ? '-' : 'set'}`);
  terminal.line(`  auth   ${authOf(config)}`);
}

/** Configs as a table: id, url, token, auth. */
export function writePushConfigTable(
  terminal: Terminal,
  configs: readonly TaskPushNotificationConfig[],
): void {
  if (configs.length === 0) {
    terminal.line('No push configs.');
    return;
  }
  const rows = configs.map((config) => [
    config.id ?? '-',
    config.url,
    config.token === undefined ? '-' : 'set',
    authOf(config),
  ]);
  const header = ['ID', 'URL', 'TOKEN', 'AUTH'];
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const format = (cells: readonly string[]): string =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ');
  terminal.line(terminal.style.bold(format(header)));
  for (const row of rows) terminal.line(format(row));
}

/** Where a config's deliveries stand, one fact a line. */
export function writePushStatus(terminal: Terminal, status: PushDeliveryStatusJson): void {
  const { style } = terminal;
  const health = status.failing
    ? style.red('failing (attempts slowed to a probe)')
    : status.failureCount > 0
      ? style.yellow('retrying')
      : style.green('ok');
  terminal.line(`deliveries    ${health}`);
  terminal.line(`pending       ${status.pendingCount}`);
  terminal.line(`failures      ${status.failureCount} in a row`);
  terminal.line(`last success  ${status.lastSuccessTime ?? '-'}`);
  if (status.lastError !== undefined) {
    terminal.line(`last error    ${status.lastError} (${status.lastErrorTime ?? 'time unknown'})`);
  }
  if (status.nextAttemptTime !== undefined) {
    terminal.line(`next attempt  ${status.nextAttemptTime}`);
  }
}
