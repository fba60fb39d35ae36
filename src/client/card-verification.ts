/**
 * Verifying an agent card's signatures (spec 8.4.3): the client rebuilds the canonical payload
 * the signer covered (defaults removed, `signatures` excluded, RFC 8785), finds the public key by
 * the signature's `kid` — among keys the caller trusts, or in a JWKS at a `jku` the caller allows —
 * and checks the JWS. A card passes when at least one signature verifies; otherwise creating the
 * client fails with {@link AgentCardError}, so a tampered card is never used. Only asymmetric
 * algorithms are accepted, and a `jku` outside the allowlist is never fetched.
 *
 * `jose` is loaded only when a card is verified, so clients that do not verify do not load it.
 */

import type * as JoseModule from 'jose';
import { canonicalCardPayload } from '../protocol/card-canonical.js';
import type { AgentCard } from '../protocol/generated/types.js';
import { AgentCardError } from './client-errors.js';

/** A public key in JWK form (`kty`, `crv`, `x`, `y`, `n`, `e`, and a `kid`). */
export type PublicJwk = JoseModule.JWK;

/** Whom the caller trusts to sign cards. */
export interface CardTrust {
  /** Trusted public keys (each with its `kid`), or a JWKS document `{ keys: [...] }`. */
  readonly keys?: readonly PublicJwk[] | { readonly keys: readonly PublicJwk[] };
  /**
   * JWKS URLs a signature's `jku` may name (exact match). Keys are fetched from them over the
   * network, so list only URLs of parties you trust, over https.
   */
  readonly jwksUrls?: readonly string[];
}

/** The signature that verified. */
export interface CardVerification {
  readonly kid: string | undefined;
  readonly alg: string;
  /** Where the key came from: `trusted` keys, or the `jku` URL. */
  readonly keySource: string;
}

const ALGORITHMS = ['ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512', 'PS256', 'EdDSA'];

/** The algorithms a key can verify, named as JWS names them; empty when unknown. */
function algorithmsOfKey(key: PublicJwk): string[] {
  switch (key.kty) {
    case 'OKP':
      return key.crv === 'Ed25519' || key.crv === 'Ed448' ? ['EdDSA'] : [];
    case 'EC':
      return { 'P-256': ['ES256'], 'P-384': ['ES384'], 'P-521': ['ES512'] }[key.crv ?? ''] ?? [];
    case 'RSA':
      return ['RS256', 'RS384', 'RS512', 'PS256'];
    default:
      return [];
  }
}

/** How a key is described to a person: its algorithm, or its type. */
function keyKind(key: PublicJwk): string {
  const [first] = algorithmsOfKey(key);
  if (key.kty === 'RSA') return 'RSA';
  return first ?? `${key.kty ?? 'unknown'}${key.crv === undefined ? '' : ` ${key.crv}`}`;
}

/** jose's reason for a failed verification, in terms of the card. */
function verificationProblem(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') {
    return 'the signature does not match the card (the card changed after it was signed, or another key signed it)';
  }
  return error instanceof Error ? error.message : String(error);
}

function keysOf(trust: CardTrust): readonly PublicJwk[] {
  const keys = trust.keys;
  if (keys === undefined) return [];
  return isKeyList(keys) ? keys : keys.keys;
}

function isKeyList(
  keys: readonly PublicJwk[] | { readonly keys: readonly PublicJwk[] },
): keys is readonly PublicJwk[] {
  return Array.isArray(keys);
}

function decodeHeader(value: string): Record<string, unknown> | undefined {
  try {
    const text = new TextDecoder().decode(
      Uint8Array.from(atob(value.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0)),
    );
    const header: unknown = JSON.parse(text);
    return typeof header === 'object' && header !== null
      ? (header as Record<string, unknown>)
      : undefined;
  } catch {
    // Not base64url JSON: a signature nobody can verify, reported as such by the caller.
    return undefined;
  }
}

/**
 * Verifies `card`'s signatures against `trust`.
 *
 * @throws AgentCardError when the card has no signature, or none verifies, saying why for each.
 */
export async function verifyAgentCard(
  card: AgentCard,
  trust: CardTrust,
  url: string,
): Promise<CardVerification> {
  const signatures = card.signatures ?? [];
  if (signatures.length === 0) {
    throw new AgentCardError(
      `The agent card at ${url} is not signed, and a signed card was required`,
    );
  }
  const jose: typeof JoseModule = await import('jose');
  const payload = jose.base64url.encode(canonicalCardPayload(card));
  const trusted = keysOf(trust);
  const allowed = new Set(trust.jwksUrls ?? []);
  const problems: string[] = [];
  for (const [index, signature] of signatures.entries()) {
    const header = decodeHeader(signature.protected);
    if (header === undefined) {
      problems.push(`signature ${index}: its protected header is not base64url JSON`);
      continue;
    }
    const kid = typeof header.kid === 'string' ? header.kid : undefined;
    const alg = typeof header.alg === 'string' ? header.alg : '';
    if (!ALGORITHMS.includes(alg)) {
      problems.push(`signature ${index}: algorithm ${JSON.stringify(alg)} is not accepted`);
      continue;
    }
    type KeyInput = Parameters<typeof jose.flattenedVerify>[1];
    const named = trusted.filter(
      (key) => kid === undefined || key.kid === undefined || key.kid === kid,
    );
    // A key of another algorithm cannot verify the signature; say so in those words rather
    // than with jose's ("Invalid key for this operation").
    const fitting = named.filter((key) => {
      const algorithms = algorithmsOfKey(key);
      return algorithms.length === 0 || algorithms.includes(alg);
    });
    for (const key of named.filter((candidate) => !fitting.includes(candidate))) {
      problems.push(
        `signature ${index} (kid ${kid ?? 'none'}): the trusted key is ${keyKind(key)}, the signature ${alg}`,
      );
    }
    const candidates: { key: () => Promise<KeyInput>; source: string }[] = fitting.map((key) => ({
      key: () => jose.importJWK(key, alg),
      source: 'trusted keys',
    }));
    const jku = typeof header.jku === 'string' ? header.jku : undefined;
    if (jku !== undefined && allowed.has(jku)) {
      const remote = jose.createRemoteJWKSet(new URL(jku));
      const protectedHeader = { alg, ...(kid === undefined ? {} : { kid }) };
      candidates.push({
        key: () => remote(protectedHeader, { payload, signature: signature.signature }),
        source: jku,
      });
    }
    if (candidates.length === 0 && named.length === 0) {
      problems.push(
        `signature ${index}: no trusted key${kid === undefined ? '' : ` with kid ${JSON.stringify(kid)}`}` +
          (jku === undefined ? '' : ` (its jku ${jku} is not in jwksUrls)`),
      );
      continue;
    }
    for (const candidate of candidates) {
      try {
        const jws = { protected: signature.protected, signature: signature.signature, payload };
        await jose.flattenedVerify(jws, await candidate.key(), { algorithms: ALGORITHMS });
        return { kid, alg, keySource: candidate.source };
      } catch (error) {
        problems.push(
          `signature ${index} (kid ${kid ?? 'none'}, ${candidate.source}): ${verificationProblem(error)}`,
        );
      }
    }
  }
  throw new AgentCardError(
    `The agent card at ${url} has no signature that verifies: ${problems.join('; ')}`,
  );
}
