/**
 * `parseArgs` with the user's words instead of Node's. Node's messages ("Unknown option
 * '--jsn'. To specify a positional argument starting with a '-', place it at the end of the
 * command after '--'…") describe the parser, not the command; this wrapper turns each of its
 * errors into a {@link UsageFailure} that names the flag, what was wrong and, for a typo, the
 * flag that was probably meant. Every command parses through it, `tandem serve` included.
 */

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageFailure } from './cli-values.js';
import { closestMatch } from './did-you-mean.js';

/** The flags a user could have meant, as typed: `--json`, `-h`. */
function knownFlags(options: ParseArgsConfig['options']): string[] {
  return Object.entries(options ?? {}).flatMap(([name, option]) => [
    `--${name}`,
    ...(option.short === undefined ? [] : [`-${option.short}`]),
  ]);
}

/** The first `'…'`-quoted word of Node's message: the flag or argument it is about. */
function quoted(message: string): string | undefined {
  return /'([^']*)'/.exec(message)?.[1];
}

/** The usage failure for one of `parseArgs`'s errors, or undefined for any other error. */
function translate(error: unknown, config: ParseArgsConfig): UsageFailure | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as NodeJS.ErrnoException).code;
  const subject = quoted(error.message) ?? '';
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const flag = subject.split('=')[0] ?? subject;
      const match = closestMatch(flag.replace(/^-+/, ''), knownFlags(config.options).map(bare));
      const hint =
        match === undefined
          ? '; to pass it as text, put it after --'
          : `; did you mean ${flagOf(match, config)}?`;
      return new UsageFailure(`unknown option ${flag}${hint}`, { cause: error });
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      // "Option '--timeout <value>' argument missing" or "Option '--json' does not take an
      // argument"; the quoted part starts with the flag either way.
      const flag = subject.split(/[ ,]/).find((word) => word.startsWith('--')) ?? subject;
      const message = /does not take an argument/.test(error.message)
        ? `${flag} takes no value`
        : `${flag} needs a value`;
      return new UsageFailure(message, { cause: error });
    }
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return new UsageFailure(`unexpected argument "${subject}"`, { cause: error });
    default:
      return undefined;
  }
}

/** A flag without its dashes, so that `-jsn` and `--jsn` compare alike. */
function bare(flag: string): string {
  return flag.replace(/^-+/, '');
}

/** The flag as typed, from its bare name: `json` → `--json`, `h` → `-h`. */
function flagOf(name: string, config: ParseArgsConfig): string {
  return Object.hasOwn(config.options ?? {}, name) ? `--${name}` : `-${name}`;
}

/**
 * Parses a command line like `parseArgs(config)` and takes the same configuration.
 *
 * @throws UsageFailure for an unknown option (with the closest known one), an option without its
 *   value or with one it does not take, or a positional where none is allowed.
 */
export function parseCommandLine<T extends ParseArgsConfig>(
  config: T,
): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    throw translate(error, config) ?? error;
  }
}
