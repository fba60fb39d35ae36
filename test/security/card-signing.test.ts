/**
 * Agent card signatures (spec 8.4): the RFC 8785 canonical form exactly as the RFC's examples
 * write it, and signatures made by `createCardSigner` that `verifyAgentCard` accepts — over
 * cards holding non-ASCII and HTML-significant text — and refuses once one byte changes.
 */

import { generateKeyPairSync } from 'node:crypto';
import { exportJWK } from 'jose';
import { describe, expect, it } from 'vitest';
import type { AgentCard } from '../../src/index.js';
import { canonicalCardPayload, canonicalJson } from '../../src/codecs.js';
import { verifyAgentCard } from '../../src/client.js';
import { createCardSigner } from '../../src/server.js';

/** A number from the bits of an IEEE 754 double, as RFC 8785 Appendix B lists them. */
function double(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

describe('RFC 8785 canonicalization', () => {
  it('writes the example of section 3.2.2 exactly', () => {
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",' +
        ' "literals": [null, true, false]}',
    ) as unknown;
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('sorts members by UTF-16 code units (section 3.2.3)', () => {
    const input = JSON.parse(
      '{"\\u20ac": "Euro Sign", "\\r": "Carriage Return", "\\ufb33": "Hebrew Letter Dalet With Dagesh",' +
        ' "1": "One", "\\ud83d\\ude00": "Emoji: Grinning Face", "\\u0080": "Control",' +
        ' "\\u00f6": "Latin Small Letter O With Diaeresis"}',
    ) as unknown;
    expect(canonicalJson(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control",' +
        '"ö":"Latin Small Letter O With Diaeresis","€":"Euro Sign","😀":"Emoji: Grinning Face",' +
        '"\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it('writes the numbers of Appendix B in their shortest form', () => {
    const vectors: [string, string][] = [
      ['0000000000000000', '0'],
      ['8000000000000000', '0'],
      ['0000000000000001', '5e-324'],
      ['8000000000000001', '-5e-324'],
      ['7fefffffffffffff', '1.7976931348623157e+308'],
      ['ffefffffffffffff', '-1.7976931348623157e+308'],
      ['4340000000000000', '9007199254740992'],
      ['c340000000000000', '-9007199254740992'],
      ['4430000000000000', '295147905179352830000'],
      ['44b52d02c7e14af5', '9.999999999999997e+22'],
      ['44b52d02c7e14af6', '1e+23'],
      ['44b52d02c7e14af7', '1.0000000000000001e+23'],
      ['444b1ae4d6e2ef4e', '999999999999999700000'],
      ['444b1ae4d6e2ef4f', '999999999999999900000'],
      ['444b1ae4d6e2ef50', '1e+21'],
      ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
      ['3eb0c6f7a0b5ed8d', '0.000001'],
      ['41b3de4355555553', '333333333.3333332'],
      ['41b3de4355555554', '333333333.33333325'],
      ['41b3de4355555555', '333333333.3333333'],
      ['41b3de4355555556', '333333333.3333334'],
      ['41b3de4355555557', '333333333.33333343'],
      ['becbf647612f3696', '-0.0000033333333333333333'],
      ['43143ff3c1cb0959', '1424953923781206.2'],
    ];
    for (const [bits, text] of vectors)
      expect([bits, canonicalJson(double(bits))]).toEqual([bits, text]);
    for (const bits of ['7fffffffffffffff', '7ff0000000000000', 'fff0000000000000']) {
      expect(() => canonicalJson({ n: double(bits) })).toThrow(/\$\.n is (NaN|-?Infinity)/);
    }
  });

  it('leaves non-ASCII text and <, >, & unescaped', () => {
    expect(canonicalJson({ b: '<script>&amp;</script>', a: 'Grüße, 世界 \u2028' })).toBe(
      '{"a":"Grüße, 世界 \u2028","b":"<script>&amp;</script>"}',
    );
  });
});

const card: AgentCard = {
  name: 'Agent <Ünïcødé> & "friends"',
  description: 'Résumés, 日本語, emoji 🎲 and <b>HTML</b> & more',
  version: '1.0.0',
  supportedInterfaces: [
    { url: 'https://agent.example.com/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  ],
  capabilities: { streaming: true, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [
    {
      id: 'ß',
      name: 'Straße',
      description: '1 < 2 && 3 > 2',
      tags: ['ünïcødé', '<>'],
    },
  ],
};

/** Flips one byte of the card's canonical payload in a field and returns the changed card. */
function tampered(source: AgentCard): AgentCard {
  return { ...source, description: source.description.replace('&', '+') };
}

describe.each(['ES256', 'RS256', 'EdDSA'] as const)('card signatures with %s', (alg) => {
  const pair =
    alg === 'ES256'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : alg === 'RS256'
        ? generateKeyPairSync('rsa', { modulusLength: 2048 })
        : generateKeyPairSync('ed25519');

  it('signs a card with non-ASCII and HTML-significant text that then verifies', async () => {
    const signer = await createCardSigner({ privateKey: pair.privateKey });
    expect(signer.alg).toBe(alg);
    const signature = await signer.sign(card);
    const header = JSON.parse(Buffer.from(signature.protected, 'base64url').toString()) as object;
    expect(header).toEqual({ alg, typ: 'JOSE', kid: signer.kid });
    const signed = { ...card, signatures: [signature] };
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: signer.kid };
    const verified = await verifyAgentCard(signed, { keys: [jwk] }, 'test');
    expect(verified).toEqual({ kid: signer.kid, alg, keySource: 'trusted keys' });
    // The payload holds the text as it is, not escaped for HTML.
    expect(canonicalCardPayload(signed)).toContain('"name":"Agent <Ünïcødé> & \\"friends\\""');
    // A change of one byte, or a key of someone else, fails.
    await expect(
      verifyAgentCard({ ...tampered(card), signatures: [signature] }, { keys: [jwk] }, 'test'),
    ).rejects.toThrow(/no signature that verifies/);
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const stranger = { ...(await exportJWK(other.publicKey)), kid: signer.kid };
    await expect(verifyAgentCard(signed, { keys: [stranger] }, 'test')).rejects.toThrow(
      /no signature that verifies/,
    );
  });
});

describe('card verification', () => {
  it('refuses an unsigned card, an unknown kid, a jku outside the allowlist and alg none', async () => {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const signer = await createCardSigner({
      privateKey: pair.privateKey,
      kid: 'k1',
      jku: 'https://keys.example.com/jwks.json',
    });
    const signed = { ...card, signatures: [await signer.sign(card)] };
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k2' };
    await expect(verifyAgentCard(card, { keys: [jwk] }, 'u')).rejects.toThrow(/is not signed/);
    await expect(verifyAgentCard(signed, { keys: [jwk] }, 'u')).rejects.toThrow(
      /no trusted key with kid "k1" \(its jku https:\/\/keys\.example\.com\/jwks\.json is not in jwksUrls\)/,
    );
    const none = Buffer.from(JSON.stringify({ alg: 'none', kid: 'k2' })).toString('base64url');
    await expect(
      verifyAgentCard(
        { ...card, signatures: [{ protected: none, signature: '' }] },
        { keys: [jwk] },
        'u',
      ),
    ).rejects.toThrow(/algorithm "none" is not accepted/);
  });

  it('refuses signing keys that are public, symmetric or on other curves', async () => {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    await expect(createCardSigner({ privateKey: pair.publicKey })).rejects.toThrow(
      /must be a private key/,
    );
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    await expect(createCardSigner({ privateKey: p384.privateKey })).rejects.toThrow(/P-256/);
    await expect(createCardSigner({ privateKey: 'not a key' })).rejects.toThrow(/not a PEM/);
  });
});
