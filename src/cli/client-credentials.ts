/**
 * The credentials a client command sends: a bearer token and an API key, each from a file
 * (`--token-file`, `--api-key-file`), the environment (`TANDEM_TOKEN`, `TANDEM_API_KEY`) or, last
 * resort, a flag value (`--token`, `--api-key`). A flag value is visible to every user of the
 * machine (`ps`, `/proc/<pid>/cmdline`) and stays in the shell history, so using one earns a
 * warning that names the alternatives — never the secret.
 */

import { readFileSync } from 'node:fs';
import { UsageFailure } from './cli-values.js';

/** The flags this module reads, as `parseArgs` returns them. */
export interface CredentialValues {
  readonly token?: string | undefined;
  readonly 'token-file'?: string | undefined;
  readonly 'api-key'?: string | undefined;
  readonly 'api-key-file'?: string | undefined;
}

/** The secrets to send. */
export interface ClientCredentials {
  readonly token: string | undefined;
  readonly apiKey: string | undefined;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The first non-blank line of `path`, trimmed: a file with a trailing newline is the usual.
 *
 * @throws UsageFailure naming `option` when the file cannot be read or holds no line.
 */
export function readSecretFile(path: string, option: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageFailure(
      `${option} ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
  const secret = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .find((line) => line !== '');
  if (secret === undefined) throw new UsageFailure(`${option} ${path} is empty`);
  return secret;
}

/**
 * The warning for a secret given as the value of `--flag`: who can read it, and where to pass it
 * instead. It never holds the secret.
 */
export function secretOnCommandLine(flag: string, instead: string): string {
  return (
    `--${flag} on the command line is visible to every user of this machine (ps) and kept in ` +
    `the shell history; pass it in ${instead} instead`
  );
}

function one(
  values: CredentialValues,
  flag: 'token' | 'api-key',
  variable: string,
  warn: (message: string) => void,
): string | undefined {
  const file = nonEmpty(values[`${flag}-file`]);
  const value = values[flag];
  if (file !== undefined && value !== undefined) {
    throw new UsageFailure(`Give --${flag} or --${flag}-file, not both`);
  }
  if (file !== undefined) return readSecretFile(file, `--${flag}-file`);
  if (value !== undefined) {
    warn(secretOnCommandLine(flag, `${variable} or --${flag}-file <path>`));
    return value;
  }
  return nonEmpty(process.env[variable]);
}

/**
 * Reads the credentials of the flags; `warn` is told (once per flag) about a secret given as a
 * flag value.
 *
 * @throws UsageFailure for a flag given with its `-file` twin, or a file that cannot be read or is
 *   empty.
 */
export function clientCredentialsFrom(
  values: CredentialValues,
  warn: (message: string) => void,
): ClientCredentials {
  return {
    token: one(values, 'token', 'TANDEM_TOKEN', warn),
    apiKey: one(values, 'api-key', 'TANDEM_API_KEY', warn),
  };
}
