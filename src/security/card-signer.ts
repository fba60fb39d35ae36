/**
 * Agent card signing (spec 8.4): a JWS over the card's canonical payload (`canonicalCardPayload`:
 * defaults removed, `signatures` excluded, RFC 8785), in the detached form `AgentCardSignature`
 * holds — the base64url protected header (`alg`, `typ: "JOSE"`, `kid`, and `jku` when the public
 * keys are published) and the signature. ES256, RS256 and EdDSA keys are supported; the algorithm
 * follows from the key. The HTTP server signs each card version once, when it first builds it
 * (see `AgentCardCache`), not per request.
 */

import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import type * as JoseModule from 'jose';
import type { AgentCard, AgentCardSignature } from '../protocol/generated/types.js';
import { canonicalCardPayload } from '../protocol/card-canonical.js';
import { ConfigurationError } from '../protocol/local-errors.js';

/** Signs agent cards. */
export interface CardSigner {
  /** The key id the signatures name. */
  readonly kid: string;
  readonly alg: CardSigningAlgorithm;
  /** The signature of `card` as it is (any `signatures` it holds are not covered). */
  sign(card: AgentCard): Promise<AgentCardSignature>;
}

/** The algorithms a card may be signed with. */
export type CardSigningAlgorithm = 'ES256' | 'RS256' | 'EdDSA';

/** Options of {@link createCardSigner}. */
export interface CardSignerOptions {
  /** The private key: PEM (PKCS#8, or SEC1/PKCS#1 as Node reads them) or a Node `KeyObject`. */
  readonly privateKey: string | KeyObject;
  /** Default: the RFC 7638 thumbprint of the public key. */
  readonly kid?: string | undefined;
  /** The URL of a JWKS holding the public key, named in the protected header. */
  readonly jku?: string | undefined;
}

function algorithmOf(key: KeyObject): CardSigningAlgorithm {
  switch (key.asymmetricKeyType) {
    case 'ec':
      if (key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
      throw new ConfigurationError(
        `The card signing key is an EC key on ${key.asymmetricKeyDetails?.namedCurve ?? 'an unknown curve'}; use P-256 (ES256)`,
      );
    case 'rsa':
      if ((key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) {
        throw new ConfigurationError('The card signing RSA key is shorter than 2048 bits');
      }
      return 'RS256';
    case 'ed25519':
      return 'EdDSA';
    default:
      throw new ConfigurationError(
        `The card signing key is a ${key.asymmetricKeyType ?? 'symmetric'} key; use an ES256 (P-256), RS256 or Ed25519 private key (tandem keygen writes one)`,
      );
  }
}

function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

/**
 * Creates a signer from a private key.
 *
 * @throws ConfigurationError for a key that is not a private ES256, RS256 or Ed25519 key.
 */
export async function createCardSigner(options: CardSignerOptions): Promise<CardSigner> {
  let key: KeyObject;
  try {
    key =
      typeof options.privateKey === 'string'
        ? createPrivateKey(options.privateKey)
        : options.privateKey;
  } catch (error) {
    throw new ConfigurationError('The card signing key is not a PEM private key', {
      cause: error,
    });
  }
  if (key.type !== 'private') {
    throw new ConfigurationError('The card signing key must be a private key, not a public one');
  }
  const alg = algorithmOf(key);
  const jose: typeof JoseModule = await import('jose');
  const publicJwk = await jose.exportJWK(createPublicKey(key));
  const kid = options.kid ?? (await jose.calculateJwkThumbprint(publicJwk, 'sha256'));
  const header: JoseModule.JWSHeaderParameters = { alg, typ: 'JOSE', kid };
  if (options.jku !== undefined) header.jku = options.jku;
  const encoder = new TextEncoder();
  return {
    kid,
    alg,
    async sign(card) {
      const payload = encoder.encode(canonicalCardPayload(card));
      const jws = await new jose.FlattenedSign(payload).setProtectedHeader(header).sign(key);
      // A protected header was set, so the JWS has one; encode it again rather than assert.
      const protectedHeader = jws.protected ?? base64url(encoder.encode(JSON.stringify(header)));
      return { protected: protectedHeader, signature: jws.signature };
    },
  };
}
