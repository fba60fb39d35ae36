/**
 * `tandem listen`: a webhook receiver that prints the push notifications it gets, as they arrive
 * — the quickest way to see an agent's push at work. It is the client library's receiver
 * (`createPushReceiver`) on `node:http`: it checks the token, validates each `StreamResponse` and
 * drops duplicate deliveries.
 */

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPushReceiver, toNodePushListener, type PushNotification } from '../client.js';
import { UsageFailure } from './cli-values.js';
import { secretOnCommandLine } from './client-credentials.js';
import { ExitCode } from './exit-code.js';
import { parseCommandLine } from './parse-command-line.js';

const HELP = `Usage: tandem listen [--port <n>] [--host <host>] [--token <token>] [--json]

Receives push notifications (webhook POSTs of StreamResponse events) and prints them, one line
each; each delivery it refuses (wrong token, a body that is no StreamResponse) gets one line on
stderr with the reason.

Options:
  --port <n>       Port to listen on (default 0: any free port, printed at start)
  --host <host>    Address to bind (default 127.0.0.1)
  --token <token>  Require this X-A2A-Notification-Token (env TANDEM_LISTEN_TOKEN, which
                   keeps it out of the process list)
  --json           One JSON object per line: {listening} first, then per notification
                   {deliveryId, taskId, kind, payload}
  -h, --help       Show this help

Give agents the printed URL as the config's url; an agent server refusing loopback webhooks
needs --push-allow 127.0.0.1.`;

function describe(notification: PushNotification): string {
  const { payload, taskId } = notification;
  const task = taskId ?? '-';
  if (payload.statusUpdate !== undefined) {
    const text = (payload.statusUpdate.status.message?.parts ?? [])
      .map((part) => ('text' in part ? part.text : ''))
      .join('');
    return `${task} status ${payload.statusUpdate.status.state}${text === '' ? '' : `: ${text}`}`;
  }
  if (payload.artifactUpdate !== undefined) {
    const { artifact, append, lastChunk } = payload.artifactUpdate;
    const text = artifact.parts.map((part) => ('text' in part ? part.text : '[part]')).join('');
    const flags = [append === true ? 'append' : '', lastChunk === true ? 'last' : ''].filter(
      Boolean,
    );
    return `${task} artifact ${artifact.name ?? artifact.artifactId}${flags.length > 0 ? ` (${flags.join(', ')})` : ''}: ${text}`;
  }
  if (payload.task !== undefined) return `${task} task ${payload.task.status.state}`;
  return `${task} message`;
}

/** Runs the command; resolves with the exit code once interrupted. */
export async function run(args: string[]): Promise<number> {
  let options: { port: number; host: string; token: string | undefined; json: boolean };
  try {
    const { values } = parseCommandLine({
      args,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        token: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    });
    if (values.help === true) {
      console.log(HELP);
      return ExitCode.Success;
    }
    const port = Number(values.port ?? '0');
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new UsageFailure(`--port must be an integer between 0 and 65535, got ${values.port}`);
    }
    if (values.token !== undefined) {
      console.error(
        `tandem listen: warning: ${secretOnCommandLine('token', 'TANDEM_LISTEN_TOKEN')}`,
      );
    }
    const envToken = process.env.TANDEM_LISTEN_TOKEN;
    options = {
      port,
      host: values.host ?? '127.0.0.1',
      token: values.token ?? (envToken === '' ? undefined : envToken),
      json: values.json === true,
    };
  } catch (error) {
    console.error(`tandem listen: ${error instanceof Error ? error.message : String(error)}`);
    console.error('Run `tandem listen --help` for the options.');
    return ExitCode.Usage;
  }
  const receiver = createPushReceiver({
    token: options.token,
    // A refused delivery is what someone trying push needs to see: the agent only retries.
    onReject: ({ status, reason }) => {
      console.error(`tandem listen: refused a delivery (HTTP ${status}): ${reason}`);
    },
    onNotification: (notification) => {
      if (options.json) {
        const { deliveryId, taskId, kind, payload } = notification;
        console.log(JSON.stringify({ deliveryId, taskId, kind, payload }));
      } else {
        console.log(`${new Date().toISOString()} ${describe(notification)}`);
      }
    },
  });
  const listener = toNodePushListener(receiver);
  const server = createServer((request, response) => listener(request, response));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, resolve);
    });
  } catch (error) {
    console.error(`tandem listen: ${error instanceof Error ? error.message : String(error)}`);
    return ExitCode.Connection;
  }
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const url = `http://${host}:${port}/`;
  // With --json every stdout line is a JSON object, this one included.
  console.log(
    options.json
      ? JSON.stringify({ listening: url })
      : `Listening for push notifications at ${url}`,
  );
  return new Promise<number>((resolve) => {
    const stop = (): void => {
      server.close(() => resolve(ExitCode.Success));
      server.closeAllConnections();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
