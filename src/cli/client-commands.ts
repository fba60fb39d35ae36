/**
 * The commands that call an agent, by name. They share the client and its rendering, so the
 * build puts them in one bundle apart from `tandem serve` (see scripts/bundle-cli.mjs): a server
 * starts without parsing client code and a client command without parsing the server. Each
 * command's own module still runs only when that command does.
 */

import { runWithTelemetry } from './cli-telemetry.js';

/** What a command's module exports: `run` resolves with the process's exit code. */
export interface CommandModule {
  run(args: string[]): Promise<number>;
}

/** A command that calls agents, run with the telemetry the environment asks for. */
async function traced(load: Promise<CommandModule>): Promise<CommandModule> {
  const module = await load;
  return { run: (args) => runWithTelemetry(() => module.run(args)) };
}

/** Loads the module of each client command. */
export const clientCommands = {
  card: (): Promise<CommandModule> => traced(import('./card.js')),
  send: (): Promise<CommandModule> => traced(import('./send.js')),
  stream: (): Promise<CommandModule> => traced(import('./stream.js')),
  chat: (): Promise<CommandModule> => traced(import('./chat.js')),
  tasks: (): Promise<CommandModule> => traced(import('./tasks.js')),
  get: (): Promise<CommandModule> => traced(import('./get.js')),
  cancel: (): Promise<CommandModule> => traced(import('./cancel.js')),
  subscribe: (): Promise<CommandModule> => traced(import('./subscribe.js')),
  push: (): Promise<CommandModule> => traced(import('./push.js')),
  // Calls no agent, but shares this bundle's protocol code; `serve` stays without it.
  schema: (): Promise<CommandModule> => import('./schema.js'),
  keygen: (): Promise<CommandModule> => import('./keygen.js'),
  listen: (): Promise<CommandModule> => import('./listen.js'),
  check: (): Promise<CommandModule> => import('./check.js'),
  inspect: (): Promise<CommandModule> => import('./inspect.js'),
} as const;

/** The name of a client command. */
export type ClientCommandName = keyof typeof clientCommands;
