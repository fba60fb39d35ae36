/**
 * Base64 for `bytes` fields without `node:buffer`, so the protocol layer runs in browsers too.
 */

const CHUNK = 0x8000;

/** Encodes bytes as standard, padded base64 (the ProtoJSON form of `bytes`). */
export function encodeBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  }
  return btoa(binary);
}

/** Decodes standard or URL-safe base64, with or without padding. Throws on invalid input. */
export function decodeBase64(text: string): Uint8Array {
  let normalized = text.replace(/-/g, '+').replace(/_/g, '/');
  while (normalized.length % 4 !== 0) normalized += '=';
  const binary = atob(normalized);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
