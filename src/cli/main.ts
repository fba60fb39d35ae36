#!/usr/bin/env node
/**
 * The `tandem` command line. Each command lives in its own module, imported only when it runs,
 * so that `tandem serve` starts without loading client code and the reverse.
 */

import { readFileSync } from 'node:fs';
import type { ClientCommandName, CommandModule } from './client-commands.js';
import { didYouMean } from './did-you-mean.js';
import { ExitCode } from './exit-code.js';

interface CommandEntry {
  readonly summary: string;
  readonly load: () => Promise<CommandModule>;
}

/** A command that calls an agent; all of them live in the client bundle. */
function client(summary: string, name: ClientCommandName): CommandEntry {
  return {
    summary,
    load: async () => (await import('./client-commands.js')).clientCommands[name](),
  };
}

const commands: Record<string, CommandEntry> = {
  serve: { summary: 'Serve the demo agents over A2A', load: () => import('./serve.js') },
  card: client("Show an agent's card and check it", 'card'),
  send: client('Send a message and print the answer', 'send'),
  stream: client('Send a message and follow the task live', 'stream'),
  chat: client('Talk with an agent, turn after turn', 'chat'),
  tasks: client('List tasks', 'tasks'),
  get: client('Show a task', 'get'),
  cancel: client('Cancel a task', 'cancel'),
  subscribe: client('Follow a running task live', 'subscribe'),
  schema: client('Print the JSON Schema of the A2A messages', 'schema'),
  keygen: client('Write a key pair for signing agent cards', 'keygen'),
  push: client("Manage a task's push notification configs", 'push'),
  listen: client('Receive push notifications and print them', 'listen'),
  check: client('Check an agent against the A2A specification', 'check'),
  inspect: client('Open the web inspector for an agent', 'inspect'),
};

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

function help(): string {
  const lines = [
    'Usage: tandem <command> [options]',
    '',
    'Tandem: the A2A (Agent2Agent) protocol 1.0 for Node.js.',
    '',
    'Commands:',
    ...Object.entries(commands).map(([name, entry]) => `  ${name.padEnd(12)} ${entry.summary}`),
    '',
    'Options:',
    '  -h, --help     Show this help',
    '  -v, --version  Show the version',
    '',
    'Run `tandem <command> --help` for the options of a command.',
    '',
    'Exit codes: 0 success; 1 the task failed, was rejected or was canceled; 2 usage error;',
    '3 connection or protocol error.',
  ];
  return lines.join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === '-h' || first === '--help' || first === 'help') {
    console.log(help());
    return ExitCode.Success;
  }
  if (first === '-v' || first === '--version') {
    console.log(version());
    return ExitCode.Success;
  }
  const command = commands[first];
  if (command === undefined) {
    const kind = first.startsWith('-') ? 'option' : 'command';
    const known = kind === 'option' ? ['--help', '--version'] : Object.keys(commands);
    console.error(
      `tandem: unknown ${kind} "${first}"${didYouMean(first, known) || '.'} Run \`tandem --help\` for the list.`,
    );
    return ExitCode.Usage;
  }
  const module = await command.load();
  return module.run(rest);
}

/**
 * A reader that went away (`tandem tasks URL | head -1`) is not an error of ours: stop quietly,
 * as git does, instead of dying of an unhandled EPIPE with a stack trace.
 */
function exitQuietlyOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? ExitCode.Success);
  });
}

exitQuietlyOnClosedPipe(process.stdout);
exitQuietlyOnClosedPipe(process.stderr);

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`tandem: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = ExitCode.Connection;
  },
);
