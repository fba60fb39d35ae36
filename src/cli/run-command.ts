/**
 * The frame every client command runs in: parse the command line (usage errors exit 2 with a
 * hint), answer `--help`, build the client options and the terminal, run the command's body and
 * turn whatever it throws into one line on stderr and an exit code. A command's body therefore
 * only deals with the happy path and with the failures that are particular to it.
 */

import type { parseArgs } from 'node:util';
import { createClient, type A2AClient, type ClientOptions } from '../client.js';
import {
  givenCredentials,
  missingCredentialWarning,
  type CallSituation,
} from './access-refusal.js';
import { parseAgentUrl, UsageFailure } from './cli-values.js';
import { failureOf, jsonFailureOf, type Failure } from './errors-to-exit.js';
import { ExitCode } from './exit-code.js';
import { parseCommandLine } from './parse-command-line.js';
import {
  clientOptionsFrom,
  terminalSettingsFrom,
  type OptionTable,
  type SharedValues,
} from './shared-options.js';
import { Terminal } from './terminal.js';

/** The parsed values of an option table. */
export type OptionValues<O extends OptionTable> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: true }>
>['values'];

/** What a command declares about itself. */
export interface CommandSpec<O extends OptionTable> {
  /** The command's name, as typed after `tandem`. */
  readonly name: string;
  /** The whole `--help` text. */
  readonly help: string;
  /** Its option table, {@link SHARED_OPTIONS} included. */
  readonly options: O;
  /** Names of the required positionals after `<url>`, e.g. `['taskId']`. */
  readonly required?: readonly string[];
  /** Whether more positionals may follow (joined by the command, e.g. `<text...>`). */
  readonly variadic?: boolean;
  /**
   * A failure particular to this command (e.g. `cancel` of a finished task exits 1), checked
   * before the shared mapping.
   */
  readonly failureOf?: (error: unknown) => Failure | undefined;
  /**
   * Whether `connect` warns when the card requires a credential none was given (default true;
   * `card` only shows the card, so it shows its security schemes instead).
   */
  readonly warnMissingCredential?: boolean;
  /**
   * Whether the command reads `--token` itself (`push create`: the notification token), so that
   * it is not sent as the agent's bearer token.
   */
  readonly ownsToken?: boolean;
}

/** What a command's body receives. */
export interface CommandContext<O extends OptionTable> {
  readonly values: OptionValues<O>;
  /** The agent URL (the first positional). */
  readonly url: string;
  /** The positionals after the URL. */
  readonly args: readonly string[];
  readonly terminal: Terminal;
  readonly clientOptions: ClientOptions;
  /** Discovers the agent card and creates the client. */
  readonly connect: (extra?: ClientOptions) => Promise<A2AClient>;
}

function parse<O extends OptionTable>(spec: CommandSpec<O>, args: string[]) {
  const { values, positionals } = parseCommandLine({
    args,
    options: spec.options,
    strict: true,
    allowPositionals: true,
  });
  return { values, positionals };
}

function checkPositionals<O extends OptionTable>(
  spec: CommandSpec<O>,
  positionals: readonly string[],
): void {
  const names = ['url', ...(spec.required ?? [])];
  const missing = names[positionals.length];
  if (positionals.length < names.length && missing !== undefined) {
    throw new UsageFailure(`missing <${missing}>`);
  }
  if (spec.variadic !== true && positionals.length > names.length) {
    throw new UsageFailure(`unexpected argument "${positionals[names.length] ?? ''}"`);
  }
}

/** Runs a command's body in the shared frame and resolves with its exit code. */
export async function runCommand<O extends OptionTable>(
  spec: CommandSpec<O>,
  argv: string[],
  body: (context: CommandContext<O>) => Promise<number>,
): Promise<number> {
  let context: CommandContext<O>;
  let situation: CallSituation | undefined;
  try {
    const { values, positionals } = parse(spec, argv);
    const shared = values as SharedValues;
    if (shared.help === true) {
      process.stdout.write(`${spec.help}\n`);
      return ExitCode.Success;
    }
    checkPositionals(spec, positionals);
    const url = parseAgentUrl(positionals[0] ?? '');
    const clientOptions = clientOptionsFrom(
      spec.ownsToken === true ? { ...shared, token: undefined } : shared,
      (message) => process.stderr.write(`tandem ${spec.name}: warning: ${message}\n`),
    );
    const terminal = new Terminal(terminalSettingsFrom(shared));
    const known: CallSituation = { given: givenCredentials(clientOptions) };
    situation = known;
    context = {
      values,
      url,
      args: positionals.slice(1),
      terminal,
      clientOptions,
      connect: async (extra) => {
        const client = await createClient(url, { ...clientOptions, ...extra });
        known.card = client.card;
        const missing =
          spec.warnMissingCredential === false
            ? undefined
            : missingCredentialWarning(client.card, known.given);
        if (missing !== undefined) terminal.error(`tandem ${spec.name}: warning: ${missing}`);
        return client;
      },
    };
  } catch (error) {
    const failure = failureOf(error);
    if (argv.includes('--json')) {
      process.stdout.write(`${JSON.stringify(jsonFailureOf(error, failure))}\n`);
    }
    process.stderr.write(`tandem ${spec.name}: ${failure.message}\n`);
    process.stderr.write(`Run \`tandem ${spec.name} --help\` for the usage.\n`);
    return failure.exitCode;
  }
  try {
    return await body(context);
  } catch (error) {
    const failure = spec.failureOf?.(error) ?? failureOf(error, situation);
    context.terminal.close();
    if (context.terminal.json) context.terminal.jsonLine(jsonFailureOf(error, failure));
    if (failure.exitCode === ExitCode.Usage) {
      context.terminal.error(`tandem ${spec.name}: ${failure.message}`);
      context.terminal.error(`Run \`tandem ${spec.name} --help\` for the usage.`);
    } else {
      context.terminal.error(`tandem: ${failure.message}`);
    }
    return failure.exitCode;
  } finally {
    context.terminal.close();
  }
}
