/**
 * `tandem push <create|list|get|delete|status> <url> <taskId> [configId]`: the push notification
 * configs of a task (spec 9.2 / 3.1.7–3.1.10), over whichever binding the client picks, and the
 * delivery status of one config from Tandem's own REST route. `tandem listen` is the receiver to
 * try them with.
 */

import { getPushDeliveryStatus, type A2AClient, type ClientOptions } from '../client.js';
import type { TaskPushNotificationConfig } from '../index.js';
import { parsePositiveInteger, UsageFailure } from './cli-values.js';
import { readSecretFile, secretOnCommandLine } from './client-credentials.js';
import { didYouMean } from './did-you-mean.js';
import { ExitCode } from './exit-code.js';
import { writePushConfig, writePushConfigTable, writePushStatus } from './render-push.js';
import { runCommand, type CommandContext } from './run-command.js';
import { SHARED_HELP, SHARED_OPTIONS } from './shared-options.js';

const OPTIONS = {
  ...SHARED_OPTIONS,
  url: { type: 'string' },
  id: { type: 'string' },
  'auth-scheme': { type: 'string' },
  'credentials-file': { type: 'string' },
  limit: { type: 'string' },
} as const;

type Context = CommandContext<typeof OPTIONS>;

const ACTIONS = ['create', 'list', 'get', 'delete', 'status'] as const;
type Action = (typeof ACTIONS)[number];

const HELP = `Usage: tandem push create <url> <taskId> --url <webhook> [options]
       tandem push list   <url> <taskId> [options]
       tandem push get    <url> <taskId> <configId> [options]
       tandem push delete <url> <taskId> <configId> [options]
       tandem push status <url> <taskId> <configId> [options]

Manages where the agent at <url> sends push notifications for the task <taskId>: create a
config, list or show them, delete one, or show how the deliveries of one are going (Tandem
agents; read from the agent's HTTP+JSON interface). \`tandem listen\` prints what arrives.

Options of create:
  --url <webhook>           Where the agent POSTs each event of the task (required)
  --token <token>           A token the agent sends back as X-A2A-Notification-Token, so that
                            the receiver knows the call is genuine (or env TANDEM_PUSH_TOKEN)
  --id <configId>           The config's id (default: the agent picks one)
  --auth-scheme <scheme>    How the agent authenticates to the webhook, e.g. Bearer, with
  --credentials-file <path> the credentials for that scheme, read from this file
Options of list:
  --limit <n>               Ask for at most <n> configs

In this command --token is the notification token; the agent's own bearer token comes from
--token-file <path> or TANDEM_TOKEN.

${SHARED_HELP.replace(/\n {2}--token-file[^\n]*\n[^\n]*\n/, '\n  --token-file <path>     Send Authorization: Bearer with the token in this file (or env\n                          TANDEM_TOKEN)\n')}

With --json, prints the config (or the list, or the status) as received.

Exit codes: 0 done, 2 usage error, 3 connection or protocol error (e.g. TaskNotFoundError, or
PushNotificationNotSupportedError when the agent has no push notifications).`;

function actionOf(word: string | undefined): Action {
  if (word === undefined || word === '' || word.startsWith('-')) {
    throw new UsageFailure(`missing the action: ${ACTIONS.join(', ')}`);
  }
  if ((ACTIONS as readonly string[]).includes(word)) return word as Action;
  throw new UsageFailure(`unknown action "${word}"${didYouMean(word, ACTIONS) || ''}`);
}

/** The config `create` sends, from its flags. */
function configOf(values: Context['values'], taskId: string): TaskPushNotificationConfig {
  if (values.url === undefined) throw new UsageFailure('create needs --url <webhook>');
  let webhook: URL;
  try {
    webhook = new URL(values.url);
  } catch {
    throw new UsageFailure(
      `--url must be an absolute URL like http://127.0.0.1:9000/, got "${values.url}"`,
    );
  }
  if (webhook.protocol !== 'http:' && webhook.protocol !== 'https:') {
    throw new UsageFailure(`--url must use http or https, got "${values.url}"`);
  }
  const scheme = values['auth-scheme'];
  const credentialsFile = values['credentials-file'];
  if (credentialsFile !== undefined && scheme === undefined) {
    throw new UsageFailure('--credentials-file needs --auth-scheme, e.g. --auth-scheme Bearer');
  }
  const token = values.token ?? nonEmpty(process.env.TANDEM_PUSH_TOKEN);
  return {
    taskId,
    url: values.url,
    ...(values.id === undefined ? {} : { id: values.id }),
    ...(token === undefined ? {} : { token }),
    ...(scheme === undefined
      ? {}
      : {
          authentication: {
            scheme,
            ...(credentialsFile === undefined
              ? {}
              : { credentials: readSecretFile(credentialsFile, '--credentials-file') }),
          },
        }),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** The headers that carry the command line's credentials to Tandem's REST status route. */
function statusHeaders(client: A2AClient, options: ClientOptions): Record<string, string> {
  const headers: Record<string, string> = { ...options.headers };
  const { auth } = options;
  if (auth?.bearerToken !== undefined) headers.authorization = `Bearer ${auth.bearerToken}`;
  if (auth?.apiKey !== undefined) {
    const scheme = Object.values(client.card.securitySchemes ?? {}).find(
      (candidate) => candidate.apiKeySecurityScheme?.location === 'header',
    )?.apiKeySecurityScheme;
    if (scheme !== undefined) headers[scheme.name] = auth.apiKey.value;
  }
  return headers;
}

async function status(context: Context, client: A2AClient, taskId: string, id: string) {
  const rest =
    client.selectedInterface.protocolBinding === 'HTTP+JSON'
      ? client.selectedInterface
      : client.card.supportedInterfaces.find((entry) => entry.protocolBinding === 'HTTP+JSON');
  if (rest === undefined) {
    throw new UsageFailure(
      "push status reads Tandem's REST route, and the card offers no HTTP+JSON interface",
    );
  }
  return getPushDeliveryStatus(
    new URL(rest.url, context.url).toString(),
    { taskId, id, ...(rest.tenant === undefined ? {} : { tenant: rest.tenant }) },
    {
      headers: statusHeaders(client, context.clientOptions),
      ...(context.clientOptions.fetch === undefined ? {} : { fetch: context.clientOptions.fetch }),
    },
  );
}

async function act(action: Action, context: Context): Promise<number> {
  const { terminal, values, args } = context;
  const [taskId = '', id = ''] = args;
  if (action !== 'create' && values.url !== undefined) {
    throw new UsageFailure(`--url is an option of push create, not of push ${action}`);
  }
  if (action !== 'create' && values.token !== undefined) {
    throw new UsageFailure(
      `--token is the notification token of push create; for the agent use --token-file or TANDEM_TOKEN`,
    );
  }
  const config = action === 'create' ? configOf(values, taskId) : undefined;
  if (values.token !== undefined) {
    terminal.error(`tandem push: warning: ${secretOnCommandLine('token', 'TANDEM_PUSH_TOKEN')}`);
  }
  const client = await context.connect();
  switch (action) {
    case 'create': {
      const created = await client.createTaskPushNotificationConfig(
        config as TaskPushNotificationConfig,
      );
      if (terminal.json) terminal.jsonDocument(created);
      else writePushConfig(terminal, created, 'created');
      return ExitCode.Success;
    }
    case 'list': {
      const limit =
        values.limit === undefined ? undefined : parsePositiveInteger(values.limit, '--limit');
      const list = await client.listTaskPushNotificationConfigs({
        taskId,
        ...(limit === undefined ? {} : { pageSize: limit }),
      });
      if (terminal.json) terminal.jsonDocument(list);
      else writePushConfigTable(terminal, list.configs ?? []);
      return ExitCode.Success;
    }
    case 'get': {
      const found = await client.getTaskPushNotificationConfig({ taskId, id });
      if (terminal.json) terminal.jsonDocument(found);
      else writePushConfig(terminal, found, undefined);
      return ExitCode.Success;
    }
    case 'delete':
      await client.deleteTaskPushNotificationConfig({ taskId, id });
      if (terminal.json) terminal.jsonDocument({});
      else terminal.line(`deleted push config ${id} of task ${taskId}`);
      return ExitCode.Success;
    case 'status': {
      const delivery = await status(context, client, taskId, id);
      if (terminal.json) terminal.jsonDocument(delivery);
      else writePushStatus(terminal, delivery);
      return ExitCode.Success;
    }
  }
}

/** Runs the command; resolves with the exit code. */
export function run(args: string[]): Promise<number> {
  const [word, ...rest] = args;
  if (word === '-h' || word === '--help') {
    process.stdout.write(`${HELP}\n`);
    return Promise.resolve(ExitCode.Success);
  }
  let action: Action;
  try {
    action = actionOf(word);
  } catch (error) {
    process.stderr.write(`tandem push: ${(error as Error).message}\n`);
    process.stderr.write('Run `tandem push --help` for the usage.\n');
    return Promise.resolve(ExitCode.Usage);
  }
  const withConfig = action === 'get' || action === 'delete' || action === 'status';
  const spec = {
    name: `push ${action}`,
    help: HELP,
    options: OPTIONS,
    required: withConfig ? ['taskId', 'configId'] : ['taskId'],
    // Here --token is the notification token, not the agent's bearer token.
    ownsToken: true,
  };
  return runCommand(spec, rest, (context) => act(action, context));
}
