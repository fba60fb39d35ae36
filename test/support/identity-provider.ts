/**
 * A local OAuth 2.0 / OpenID Connect issuer for tests of JWT authentication: keys the test
 * creates, published as a JWKS on a loopback port with an OpenID discovery document, tokens
 * signed with them, and key rotation (a new key published, tokens signed with it).
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  SignJWT,
  exportJWK,
  generateKeyPair,
  type CryptoKey,
  type JWK,
  type JWTPayload,
} from 'jose';

interface SigningKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
}

/** Options of one token. */
export interface TokenOptions {
  /** Claims over the defaults (`iss`, `sub`, `aud`, `exp` in an hour, `iat` now). */
  readonly claims?: JWTPayload;
  /** Claims to leave out of the defaults. */
  readonly omit?: readonly string[];
  /** Sign with this key id (default the newest published key). */
  readonly kid?: string;
}

/** A running issuer. */
export interface IdentityProvider {
  /** The issuer URL (`iss`), also the base of its discovery document. */
  readonly issuer: string;
  readonly jwksUrl: string;
  /** How many times the JWKS was fetched. */
  readonly jwksFetches: number;
  /** A signed token for `sub`. */
  token(sub: string, audience: string, options?: TokenOptions): Promise<string>;
  /** Creates a key and publishes it (the old ones stay); returns its `kid`. */
  rotate(): Promise<string>;
  /** Creates a key that is not published (a token signed with it names an unknown kid). */
  unpublishedKey(): Promise<string>;
  /** The published public key of `kid`, as a JWK. */
  publicJwk(kid?: string): JWK;
  close(): Promise<void>;
}

let keyCounter = 0;

async function newKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const kid = `key-${++keyCounter}`;
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256' } };
}

/** Starts an issuer on a loopback port with one published key. */
export async function startIdentityProvider(): Promise<IdentityProvider> {
  const published: SigningKey[] = [await newKey()];
  const hidden: SigningKey[] = [];
  let jwksFetches = 0;
  let base = '';
  const server: Server = createServer((request, response) => {
    if (request.url === '/.well-known/openid-configuration') {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ issuer: base, jwks_uri: `${base}/jwks.json` }));
      return;
    }
    if (request.url === '/jwks.json') {
      jwksFetches++;
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ keys: published.map((key) => key.publicJwk) }));
      return;
    }
    response.statusCode = 404;
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const keyOf = (kid: string | undefined): SigningKey => {
    const key =
      kid === undefined
        ? published.at(-1)
        : [...published, ...hidden].find((candidate) => candidate.kid === kid);
    if (key === undefined) throw new Error(`No key ${kid ?? ''}`);
    return key;
  };
  return {
    issuer: base,
    jwksUrl: `${base}/jwks.json`,
    get jwksFetches() {
      return jwksFetches;
    },
    async token(sub, audience, options = {}) {
      const key = keyOf(options.kid);
      const now = Math.floor(Date.now() / 1000);
      const claims: JWTPayload = {
        iss: base,
        sub,
        aud: audience,
        iat: now,
        exp: now + 3600,
        ...options.claims,
      };
      for (const name of options.omit ?? []) delete claims[name];
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT' })
        .sign(key.privateKey);
    },
    async rotate() {
      const key = await newKey();
      published.push(key);
      return key.kid;
    },
    async unpublishedKey() {
      const key = await newKey();
      hidden.push(key);
      return key.kid;
    },
    publicJwk(kid) {
      return keyOf(kid).publicJwk;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An unsigned token (`alg: none`) with these claims. */
export function unsignedToken(claims: JWTPayload): string {
  const encode = (value: object): string =>
    Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${encode({ alg: 'none', typ: 'JWT' })}.${encode(claims)}.`;
}
