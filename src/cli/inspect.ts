/**
 * `tandem inspect [url]`: the web inspector on a local port — the page, and a backend that calls
 * agents with Tandem's client (so gRPC agents, agents without CORS and 0.3 agents all work). It
 * listens on loopback unless told otherwise, prints its URL and opens the browser; with a URL it
 * connects at once, with the credentials of the usual flags.
 */

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseAgentUrl, UsageFailure } from './cli-values.js';
import { failureOf } from './errors-to-exit.js';
import { ExitCode } from './exit-code.js';
import { parseCommandLine } from './parse-command-line.js';
import { clientOptionsFrom } from './shared-options.js';
import { createInspectorApp } from '../inspector/inspector-app.js';
import type { BindingChoice, Credentials, FailureView } from '../inspector/inspector-api.js';
import { openBrowser } from '../inspector/open-browser.js';
import { allowedHostsFor, isLoopbackHost } from '../inspector/request-guard.js';

const HELP = `Usage: tandem inspect [url] [options]

Starts the web inspector: a page to see an agent's card, chat with it, follow its events and
tasks, receive its push notifications, see every request on the wire and check it against the
spec. With <url>, it connects to that agent at once.

Options:
  --port <n>              Port to listen on (default 41242; 0: any free port)
  --host <host>           Address to bind (default 127.0.0.1). Anything but loopback lets other
                          machines drive the inspector with the credentials you give it
  --allow-host <name>     Also answer to this host name (repeatable), e.g. behind a proxy
  --no-open               Do not open the browser
  --token-file <path>     Connect with Authorization: Bearer and the token in this file (or env
                          TANDEM_TOKEN; --token <token> works too, but ps shows it)
  --api-key-file <path>   Connect with the API key in this file (or env TANDEM_API_KEY)
  --header 'Name: value'  Send this header to the agent (repeatable)
  --binding <binding>     jsonrpc | rest | grpc (default: the client's choice)
  -h, --help              Show this help

Credentials stay in the inspector's memory: nothing is written to disk, and the page shows them
masked. Stop it with Ctrl-C.`;

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'allow-host': { type: 'string', multiple: true },
  'no-open': { type: 'boolean' },
  token: { type: 'string' },
  'token-file': { type: 'string' },
  'api-key': { type: 'string' },
  'api-key-file': { type: 'string' },
  header: { type: 'string', multiple: true },
  binding: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The default port: next to `tandem serve`'s 41241. */
export const DEFAULT_INSPECT_PORT = 41242;

function parse(args: string[]) {
  const parsed = parseCommandLine({ args, options: OPTIONS, strict: true, allowPositionals: true });
  const { values, positionals } = parsed;
  if (positionals.length > 1) throw new UsageFailure(`unexpected argument "${positionals[1]}"`);
  const port = Number(values.port ?? DEFAULT_INSPECT_PORT);
  if (!/^\d+$/.test(values.port ?? '0') || port > 65535) {
    throw new UsageFailure(`--port must be an integer between 0 and 65535, got ${values.port}`);
  }
  // The connection flags read as every client command reads them.
  const client = clientOptionsFrom(values, (message) =>
    process.stderr.write(`tandem inspect: warning: ${message}\n`),
  );
  const headers = Object.entries(client.headers ?? {}).map(([name, value]) => ({ name, value }));
  const credentials: Credentials = {
    ...(client.auth?.bearerToken === undefined ? {} : { bearerToken: client.auth.bearerToken }),
    ...(client.auth?.apiKey === undefined ? {} : { apiKey: client.auth.apiKey }),
    ...(headers.length === 0 ? {} : { headers }),
  };
  const url = positionals[0];
  return {
    help: values.help === true,
    url: url === undefined ? undefined : parseAgentUrl(url),
    port,
    host: values.host ?? '127.0.0.1',
    allowHosts: values['allow-host'] ?? [],
    open: values['no-open'] !== true,
    binding: (client.bindings?.[0] ?? 'auto') as BindingChoice,
    credentials,
  };
}

function describeError(error: unknown): FailureView {
  const failure = failureOf(error);
  const type = error instanceof Error ? error.name : 'Error';
  return { type, message: failure.message, exitCode: failure.exitCode };
}

/** Runs the command; resolves with the exit code once the inspector stops. */
export async function run(args: string[]): Promise<number> {
  let options: ReturnType<typeof parse>;
  try {
    options = parse(args);
  } catch (error) {
    process.stderr.write(`tandem inspect: ${failureOf(error).message}\n`);
    process.stderr.write('Run `tandem inspect --help` for the usage.\n');
    return ExitCode.Usage;
  }
  if (options.help) {
    process.stdout.write(`${HELP}\n`);
    return ExitCode.Success;
  }
  let port = options.port;
  const displayHost =
    options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host;
  const origin = (): string =>
    `http://${displayHost.includes(':') ? `[${displayHost}]` : displayHost}:${port}`;
  let app;
  try {
    app = createInspectorApp({
      assets: new URL('../../dist/inspector/page/', import.meta.url),
      allowedHosts: () => allowedHostsFor(options.host, port, options.allowHosts),
      publicUrl: origin,
      describeError,
      // The Check view runs tandem/check against the agent, loaded when it first runs.
      loadCheck: async () => {
        const { checkAgent, CHECK_AREAS } = await import('../check.js');
        return { checkAgent, areas: CHECK_AREAS };
      },
    });
  } catch (error) {
    process.stderr.write(`tandem inspect: ${failureOf(error).message}\n`);
    return ExitCode.Usage;
  }
  const server = createServer(app.listener);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => resolve());
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const hint = code === 'EADDRINUSE' ? '; pick another with --port (0: any free port)' : '';
    process.stderr.write(
      `tandem inspect: cannot listen on ${options.host}:${options.port} (${code ?? String(error)})${hint}\n`,
    );
    return ExitCode.Usage;
  }
  port = (server.address() as AddressInfo).port;
  const url = `${origin()}/`;
  if (!isLoopbackHost(options.host)) {
    process.stderr.write(
      `tandem inspect: warning: listening on ${options.host}, not loopback: whoever reaches this port can use the inspector\n`,
    );
  }
  process.stdout.write(`Tandem inspector at ${url}\n`);
  if (options.url !== undefined) {
    const view = await app
      .connect({
        url: options.url,
        binding: options.binding,
        credentials: options.credentials,
      })
      .catch((error: unknown) => {
        process.stderr.write(`tandem inspect: ${describeError(error).message}\n`);
        return undefined;
      });
    if (view !== undefined) {
      const name = view.card?.name ?? view.url;
      process.stdout.write(
        view.failure === undefined
          ? `Connected to ${name}\n`
          : `Connected to ${name}, but: ${view.failure.message}\n`,
      );
    }
  }
  if (options.open) {
    openBrowser(url, (reason) =>
      process.stderr.write(`tandem inspect: could not open a browser (${reason}); open ${url}\n`),
    );
  }
  return new Promise<number>((resolve) => {
    const stop = (): void => {
      server.closeAllConnections();
      server.close(() => resolve(ExitCode.Success));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
