/**
 * Reading the command line of `tandem serve` into flag values, with mistakes told in Tandem's
 * words: Node's `parseArgs` wording ("To specify a positional argument starting with a '-',
 * place it at the end of the command after '--'") describes its own rules, not what the user
 * got wrong. The arguments are first read leniently, as tokens, so that an unknown flag can be
 * named with the closest known one (`--prot` → `--port`), a flag missing its value or given one
 * it does not take can be told as such; only then are they parsed strictly.
 */

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageFailure } from '../cli-values.js';
import { didYouMean } from '../did-you-mean.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** The values `parseArgs` reads for an option table, strictly and without positionals. */
export type FlagValues<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: false }>
>['values'];

/** The flag as typed (`--port`, `-h`) of an option name. */
function flagOf(name: string, options: Options): string {
  return options[name] === undefined && name.length === 1 ? `-${name}` : `--${name}`;
}

/**
 * The first mistake in `args`, as a usage failure; `undefined` when there is none.
 */
function mistakeIn(args: readonly string[], options: Options): UsageFailure | undefined {
  const { tokens } = parseArgs({
    args: [...args],
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const known = Object.keys(options).map((name) => `--${name}`);
  for (const token of tokens) {
    if (token.kind === 'positional') {
      return new UsageFailure(
        `unexpected argument "${token.value}": tandem serve takes flags only (a flag's value goes right after it)`,
      );
    }
    if (token.kind !== 'option') continue;
    const option = options[token.name];
    const shortOf = Object.entries(options).find(([, o]) => o.short === token.name)?.[0];
    const name = option === undefined && shortOf !== undefined ? shortOf : token.name;
    const declared = options[name];
    if (declared === undefined) {
      const raw = token.rawName;
      return new UsageFailure(`unknown flag ${raw}${didYouMean(raw, known)}`);
    }
    const flag = flagOf(name, options);
    if (declared.type === 'boolean' && token.value !== undefined) {
      return new UsageFailure(`${flag} takes no value, got "${token.value}"`);
    }
    if (declared.type === 'string') {
      if (token.value === undefined) return new UsageFailure(`${flag} needs a value`);
      if (token.inlineValue === false && token.value.startsWith('-')) {
        return new UsageFailure(
          `${flag} needs a value, got the flag ${token.value} (write ${flag}=${token.value} for a value starting with "-")`,
        );
      }
    }
  }
  return undefined;
}

/**
 * Parses `args` against `options` strictly.
 *
 * @throws UsageFailure naming the flag that is unknown (with the closest known one), lacks its
 *   value or takes none, or the argument that is not a flag.
 */
export function parseServeFlags<O extends Options>(
  args: readonly string[],
  options: O,
): FlagValues<O> {
  const mistake = mistakeIn(args, options);
  if (mistake !== undefined) throw mistake;
  try {
    return parseArgs({ args: [...args], options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    // Whatever the lenient pass did not foresee: still a usage error, in one line.
    const message = error instanceof Error ? error.message : String(error);
    throw new UsageFailure(message.split('. ')[0] ?? message);
  }
}
