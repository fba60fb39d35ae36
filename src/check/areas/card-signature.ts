/**
 * `card.signature` (spec 8.4): every signature's protected header names its algorithm and key
 * (`alg`, `kid`; `typ` should be `JOSE`), and at least one signature verifies over the card's
 * RFC 8785 form — the client's own verification (`verifyAgentCard`: defaults removed, `signatures`
 * excluded, JCS), run on the card as served so that fields this checker does not know are covered
 * too. The key comes from the signature's `jku` or from the keys the caller trusts.
 */

import type { AgentCard } from '../../protocol/generated/types.js';
import { verifyAgentCard } from '../../client/card-verification.js';
import { AgentCardError } from '../../client/client-errors.js';
import type { AgentCheck } from '../check-implementation.js';
import { fail, pass, skip } from '../verdict.js';

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function decodeHeader(value: unknown): Json | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const header: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    return isRecord(header) ? header : undefined;
  } catch {
    return undefined;
  }
}

export const CARD_SIGNATURE: AgentCheck = {
  id: 'card.signature',
  async run(context) {
    const found = context.discovered.found;
    const card = context.discovered.json;
    if (found === undefined || !isRecord(card)) return skip('no card was served');
    const signatures = Array.isArray(card.signatures) ? card.signatures : [];
    if (signatures.length === 0) return skip('the card is not signed');
    const problems: string[] = [];
    const notes: string[] = [];
    const jkus = new Set<string>();
    signatures.forEach((signature: unknown, index) => {
      const header = decodeHeader(isRecord(signature) ? signature.protected : undefined);
      if (header === undefined) {
        problems.push(`signature ${index}: its protected header is not base64url JSON`);
        return;
      }
      if (typeof header.alg !== 'string')
        problems.push(`signature ${index}: the protected header has no alg`);
      if (typeof header.kid !== 'string')
        problems.push(`signature ${index}: the protected header has no kid`);
      if (header.typ !== 'JOSE')
        notes.push(`signature ${index}: typ is ${JSON.stringify(header.typ)}, not "JOSE"`);
      if (typeof header.jku === 'string') jkus.add(header.jku);
    });
    if (problems.length > 0) return fail(problems.join('; '), found.exchange);
    const trusted = context.options.trust?.keys;
    if (jkus.size === 0 && trusted === undefined) {
      return skip(
        'the signatures name no jku and no trusted key was given (--trust-key), so there is no key to verify them with',
      );
    }
    const trust = { ...(trusted === undefined ? {} : { keys: trusted }), jwksUrls: [...jkus] };
    try {
      const verified = await verifyAgentCard(card as unknown as AgentCard, trust, found.url);
      const note = notes.length === 0 ? '' : ` (${notes.join('; ')})`;
      return pass(
        `signature ${verified.alg}, kid ${verified.kid ?? 'none'}, verifies with the key from ${verified.keySource}${note}`,
        found.exchange,
      );
    } catch (error) {
      if (!(error instanceof AgentCardError)) throw error;
      // Tell a signer that left fields out from a signature that is simply wrong.
      const known = context.discovered.card;
      const unknownFields = Object.keys(card).filter(
        (key) => known !== undefined && !(key in known),
      );
      if (known !== undefined && unknownFields.length > 0) {
        const withoutThem = await verifyAgentCard(known, trust, found.url).then(
          () => true,
          () => false,
        );
        if (withoutThem) {
          return fail(
            `the signature covers the card without ${unknownFields.join(', ')}, which the served card carries: it does not verify over the card as served (§8.4.3)`,
            found.exchange,
          );
        }
      }
      return fail(error.message, found.exchange);
    }
  },
};
