/**
 * A wire entry as a command to copy: `curl` for an HTTP exchange (JSON-RPC, HTTP+JSON, the card
 * fetch) and the equivalent `tandem` command for an operation it has. Credentials never appear:
 * each is replaced by the environment variable the `tandem` command reads (`$TANDEM_TOKEN`,
 * `$TANDEM_API_KEY`), so that the command works once the variable is set.
 */

import type { BindingChoice } from './inspector-api.js';

/** A secret and the shell variable that stands for it. */
export interface SecretPlaceholder {
  readonly secret: string;
  readonly variable: string;
}

/** What the commands are built from: the raw request, before masking. */
export interface CommandSource {
  readonly method: string;
  readonly url: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: string | null;
  readonly streaming: boolean;
}

/** Quotes `text` for a POSIX shell, leaving each placeholder's variable expandable. */
export function shellQuote(text: string, placeholders: readonly SecretPlaceholder[] = []): string {
  const usable = placeholders.filter((p) => p.secret.length > 0);
  if (usable.length === 0) return singleQuoted(text);
  const out: string[] = [];
  let rest = text;
  for (;;) {
    let first: { index: number; placeholder: SecretPlaceholder } | undefined;
    for (const placeholder of usable) {
      const index = rest.indexOf(placeholder.secret);
      if (index >= 0 && (first === undefined || index < first.index))
        first = { index, placeholder };
    }
    if (first === undefined) break;
    if (first.index > 0) out.push(singleQuoted(rest.slice(0, first.index)));
    out.push(`"$${first.placeholder.variable}"`);
    rest = rest.slice(first.index + first.placeholder.secret.length);
  }
  if (rest !== '' || out.length === 0) out.push(singleQuoted(rest));
  return out.join('');
}

function singleQuoted(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Headers the HTTP stack adds by itself; a copied command leaves them out. */
const TRANSPORT_HEADERS = new Set(['content-length', 'host', 'connection', 'accept-encoding']);

/** The `curl` command of an HTTP request. */
export function curlCommand(
  source: CommandSource,
  placeholders: readonly SecretPlaceholder[],
): string {
  const parts = ['curl', '-sS'];
  if (source.streaming) parts.push('-N');
  if (source.method !== 'GET') parts.push('-X', source.method);
  parts.push(shellQuote(source.url, placeholders));
  for (const [name, value] of source.headers) {
    if (TRANSPORT_HEADERS.has(name.toLowerCase())) continue;
    parts.push('-H', shellQuote(`${name}: ${value}`, placeholders));
  }
  if (source.body !== null && source.body !== '') {
    parts.push('--data-raw', shellQuote(source.body, placeholders));
  }
  return parts.join(' ');
}

/** What the `tandem` command of an operation needs besides the request. */
export interface TandemCommandContext {
  /** The agent URL as the user entered it. */
  readonly agentUrl: string;
  readonly binding: BindingChoice;
  /** Custom header names (their values go in as placeholders too). */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly placeholders: readonly SecretPlaceholder[];
}

function bindingFlag(binding: BindingChoice): string[] {
  switch (binding) {
    case 'auto':
      return [];
    case 'JSONRPC':
      return ['--binding', 'jsonrpc'];
    case 'HTTP+JSON':
      return ['--binding', 'rest'];
    case 'GRPC':
      return ['--binding', 'grpc'];
  }
}

interface MessageLike {
  readonly parts?: ReadonlyArray<{ readonly text?: string }>;
  readonly taskId?: string;
  readonly contextId?: string;
}

function stateFlag(state: string): string {
  return state
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replace(/_/g, '-');
}

/** The operation's own arguments, or `undefined` when `tandem` has no command for it. */
function operationArgs(operation: string, request: Record<string, unknown>): string[] | undefined {
  const id = typeof request.id === 'string' ? request.id : undefined;
  switch (operation) {
    case 'GetAgentCard':
      return ['card'];
    case 'SendMessage':
    case 'SendStreamingMessage': {
      const message = (request.message ?? {}) as MessageLike;
      const parts = message.parts ?? [];
      // Only text can be given on the command line as words; files and data have no flag form.
      if (parts.length === 0 || parts.some((part) => typeof part.text !== 'string'))
        return undefined;
      const text = parts.map((part) => part.text).join('\n');
      return [
        operation === 'SendMessage' ? 'send' : 'stream',
        ...(message.taskId === undefined ? [] : ['--task', message.taskId]),
        ...(message.contextId === undefined ? [] : ['--context', message.contextId]),
        '--',
        text,
      ];
    }
    case 'GetTask':
      return id === undefined ? undefined : ['get', id];
    case 'CancelTask':
      return id === undefined ? undefined : ['cancel', id];
    case 'SubscribeToTask':
      return id === undefined ? undefined : ['subscribe', id];
    case 'ListTasks':
      return [
        'tasks',
        ...(typeof request.contextId === 'string' ? ['--context', request.contextId] : []),
        ...(typeof request.status === 'string' ? ['--status', stateFlag(request.status)] : []),
        ...(typeof request.pageSize === 'number' ? ['--limit', String(request.pageSize)] : []),
        ...(typeof request.pageToken === 'string' && request.pageToken !== ''
          ? ['--page-token', request.pageToken]
          : []),
      ];
    default:
      return undefined;
  }
}

/**
 * The `tandem` command of an operation, or `null` when there is none (push-config operations,
 * a message with files or data).
 */
export function tandemCommand(
  operation: string,
  request: Record<string, unknown>,
  context: TandemCommandContext,
): string | null {
  const args = operationArgs(operation, request);
  if (args === undefined) return null;
  const [command, ...rest] = args;
  const words = ['tandem', command ?? '', context.agentUrl];
  const separator = rest.indexOf('--');
  const flags = separator < 0 ? rest : rest.slice(0, separator);
  const tail = separator < 0 ? [] : rest.slice(separator + 1);
  const quote = (word: string): string => shellQuote(word, context.placeholders);
  // Credentials come from TANDEM_TOKEN / TANDEM_API_KEY, which the command reads by itself.
  const out = [
    ...words.map((word) => quote(word)),
    ...[...flags, ...bindingFlag(context.binding)].map(quote),
    ...context.headers.flatMap(([name, value]) => ['--header', quote(`${name}: ${value}`)]),
    ...(tail.length === 0 ? [] : ['--', ...tail.map(quote)]),
  ];
  return out.join(' ');
}
