/**
 * A list of shared secrets (bearer tokens, API keys), read from a file or an environment
 * variable, one per line: `SECRET`, or `NAME SECRET` to name the principal it authenticates;
 * blank lines and `#` comments are skipped. A secret without a name authenticates a principal
 * derived from a hash of it (`token-<16 hex digits>`), never the secret itself, so that neither
 * task ownership nor logs ever hold a credential.
 *
 * Secrets are held only as SHA-256 digests: a presented secret is hashed and looked up, so the
 * comparison time does not depend on how much of a secret matched. The list can be re-read
 * (`reload`, which `tandem serve` calls on SIGHUP) so that secrets rotate without a restart; a
 * reload that fails keeps the list as it was.
 */

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigurationError } from '../protocol/local-errors.js';

/** Shortest accepted secret: shorter ones are guessable. */
export const MIN_SECRET_LENGTH = 16;

const NAME = /^[A-Za-z0-9._@:+-]{1,128}$/;

/** Where a list comes from, for reloading and for messages (never the secrets). */
export type CredentialSource =
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'env'; readonly variable: string; readonly env: NodeJS.ProcessEnv }
  | { readonly kind: 'inline'; readonly text: string; readonly label: string };

function describe(source: CredentialSource): string {
  switch (source.kind) {
    case 'file':
      return source.path;
    case 'env':
      return `the environment variable ${source.variable}`;
    case 'inline':
      return source.label;
  }
}

function digest(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

function textOf(source: CredentialSource): string {
  switch (source.kind) {
    case 'file':
      try {
        return readFileSync(source.path, 'utf8');
      } catch (error) {
        throw new ConfigurationError(
          `Cannot read the credentials file ${source.path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
          { cause: error },
        );
      }
    case 'env':
      return (source.env[source.variable] ?? '').replace(/,/g, '\n');
    case 'inline':
      return source.text;
  }
}

/**
 * Parses the lines of a list into principal names by secret digest.
 *
 * @throws ConfigurationError naming the line (never its secret) that is malformed.
 */
function parse(source: CredentialSource): Map<string, string> {
  const where = describe(source);
  const byDigest = new Map<string, string>();
  const lines = textOf(source).split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const fields = line.split(/\s+/);
    if (fields.length > 2) {
      throw new ConfigurationError(
        `Line ${index + 1} of ${where} has ${fields.length} fields; write SECRET or NAME SECRET`,
      );
    }
    const secret = fields.length === 2 ? (fields[1] as string) : (fields[0] as string);
    const name = fields.length === 2 ? (fields[0] as string) : undefined;
    if (name !== undefined && !NAME.test(name)) {
      throw new ConfigurationError(
        `Line ${index + 1} of ${where}: the name must be 1-128 letters, digits or . _ @ : + -`,
      );
    }
    if (secret.length < MIN_SECRET_LENGTH) {
      throw new ConfigurationError(
        `Line ${index + 1} of ${where}: the secret is shorter than ${MIN_SECRET_LENGTH} characters; use a long random one (e.g. openssl rand -hex 32)`,
      );
    }
    const hash = digest(secret);
    if (byDigest.has(hash)) {
      throw new ConfigurationError(`Line ${index + 1} of ${where} repeats an earlier secret`);
    }
    byDigest.set(hash, name ?? `token-${hash.slice(0, 16)}`);
  });
  if (byDigest.size === 0) {
    throw new ConfigurationError(`${where} holds no credentials; add one SECRET per line`);
  }
  return byDigest;
}

/** The secrets of one source, by digest, re-readable. */
export class CredentialList {
  readonly #source: CredentialSource;
  #byDigest: Map<string, string>;

  /** @throws ConfigurationError when the source cannot be read or is malformed. */
  constructor(source: CredentialSource) {
    this.#source = source;
    this.#byDigest = parse(source);
  }

  /** Where the list comes from (a path or a variable name, never a secret). */
  get origin(): string {
    return describe(this.#source);
  }

  /** How many secrets the list holds. */
  get size(): number {
    return this.#byDigest.size;
  }

  /** The principal name `secret` authenticates, or `undefined`. */
  principalOf(secret: string): string | undefined {
    return this.#byDigest.get(digest(secret));
  }

  /**
   * Reads the source again. On success the new list replaces the old one at once; on failure the
   * old one stays and the error is thrown for the caller to log.
   *
   * @throws ConfigurationError when the source cannot be read or is malformed.
   */
  reload(): number {
    this.#byDigest = parse(this.#source);
    return this.#byDigest.size;
  }
}
