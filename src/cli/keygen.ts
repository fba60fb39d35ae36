/**
 * `tandem keygen`: writes a key pair for signing agent cards (`tandem serve --sign-card`): the
 * private key (PKCS#8 PEM, readable by its owner only), the public key (SPKI PEM) and a JWKS with
 * the public key under its RFC 7638 thumbprint as `kid` — the `kid` the signatures name — to
 * publish (for clients' `--trust-jku`) or hand to clients (`--trust-key`).
 */

import { createHash, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { UsageFailure } from './cli-values.js';
import { ExitCode } from './exit-code.js';
import { parseCommandLine } from './parse-command-line.js';

const HELP = `Usage: tandem keygen [--alg ES256|RS256|EdDSA] [--out <prefix>] [--force]

Writes a key pair for signing agent cards:
  <prefix>.key.pem    the private key (mode 600), for tandem serve --sign-card
  <prefix>.pub.pem    the public key, for tandem card --verify --trust-key
  <prefix>.jwks.json  the public key as a JWKS, with its kid, to publish at a jku URL

Options:
  --alg <alg>      ES256 (default, P-256), RS256 (RSA 3072) or EdDSA (Ed25519)
  --out <prefix>   Path prefix of the files (default agent-card)
  --force          Overwrite existing files
  -h, --help       Show this help`;

const ALGORITHMS = ['ES256', 'RS256', 'EdDSA'] as const;

function keyPair(alg: (typeof ALGORITHMS)[number]): {
  privateKey: KeyObject;
  publicKey: KeyObject;
} {
  switch (alg) {
    case 'ES256':
      return generateKeyPairSync('ec', { namedCurve: 'P-256' });
    case 'RS256':
      return generateKeyPairSync('rsa', { modulusLength: 3072 });
    case 'EdDSA':
      return generateKeyPairSync('ed25519');
  }
}

/** The RFC 7638 thumbprint of a public JWK: SHA-256 of its required members, base64url. */
function thumbprint(jwk: Record<string, unknown>): string {
  const members: Record<string, readonly string[]> = {
    EC: ['crv', 'kty', 'x', 'y'],
    RSA: ['e', 'kty', 'n'],
    OKP: ['crv', 'kty', 'x'],
  };
  const required = members[String(jwk.kty)] ?? [];
  const canonical = JSON.stringify(Object.fromEntries(required.map((name) => [name, jwk[name]])));
  return createHash('sha256').update(canonical).digest('base64url');
}

/** Runs the command; resolves with the exit code. */
export function run(args: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseCommandLine({
      args,
      options: {
        alg: { type: 'string' },
        out: { type: 'string' },
        force: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
    if (values.help === true) {
      console.log(HELP);
      return Promise.resolve(ExitCode.Success);
    }
    const alg = values.alg ?? 'ES256';
    if (!(ALGORITHMS as readonly string[]).includes(alg)) {
      throw new UsageFailure(`--alg must be one of ${ALGORITHMS.join(', ')}, got "${alg}"`);
    }
    const prefix = values.out ?? 'agent-card';
    const { privateKey, publicKey } = keyPair(alg as (typeof ALGORITHMS)[number]);
    const jwk = publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
    const kid = thumbprint(jwk);
    const flag = values.force === true ? 'w' : 'wx';
    const files = [
      [`${prefix}.key.pem`, privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, 0o600],
      [`${prefix}.pub.pem`, publicKey.export({ type: 'spki', format: 'pem' }) as string, 0o644],
      [
        `${prefix}.jwks.json`,
        `${JSON.stringify({ keys: [{ ...jwk, kid, alg, use: 'sig' }] }, null, 2)}\n`,
        0o644,
      ],
    ] as const;
    for (const [path, content, mode] of files) {
      try {
        writeFileSync(path, content, { flag, mode });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        throw new UsageFailure(
          code === 'EEXIST'
            ? `${path} exists; choose another --out or pass --force`
            : `${path} cannot be written (${code ?? String(error)})`,
        );
      }
    }
    console.log(`Wrote ${files.map(([path]) => path).join(', ')} (${alg}, kid ${kid})`);
    return Promise.resolve(ExitCode.Success);
  } catch (error) {
    console.error(`tandem keygen: ${error instanceof Error ? error.message : String(error)}`);
    if (!(error instanceof UsageFailure)) return Promise.resolve(ExitCode.Connection);
    console.error('Run `tandem keygen --help` for the options.');
    return Promise.resolve(ExitCode.Usage);
  }
}
