/**
 * Reading a whole web body with a ceiling, shared by the server (a request body) and the client (an
 * answer that is not a stream): past the ceiling the body is cancelled, which closes the
 * connection, instead of being buffered without end. Web streams only, so that it runs in any
 * runtime that speaks fetch.
 */

/** What {@link readAtMost} returns when the body is longer than the ceiling. */
export const TOO_LONG = Symbol('TOO_LONG');

/**
 * The bytes of a body of at most `limit` bytes, or {@link TOO_LONG} once more arrived (the rest is
 * then not read). A `null` body is empty.
 *
 * @throws what reading or cancelling the body throws (a lost connection, an abort).
 */
export async function readAtMost(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<Uint8Array | typeof TOO_LONG> {
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return TOO_LONG;
    }
    chunks.push(value);
  }
  if (chunks.length === 1 && chunks[0] !== undefined) return chunks[0];
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
