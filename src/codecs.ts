/**
 * `tandem/codecs`: the encodings Tandem's bindings are built on, for code that speaks A2A's wire
 * formats itself — an SSE reader or writer, base64 for `raw` parts, RFC 8785 canonical JSON for
 * card signatures, UUIDs for message and task ids, and the descriptors of `a2a.proto` that the
 * ProtoJSON codecs and the JSON Schemas are derived from. The root entry (`tandem`) keeps the wire
 * model, its validation and its errors; these are tools beside it. No I/O and no `node:` imports.
 *
 * Any new export added here becomes public API. Use named exports, not wildcards.
 */

export { decodeBase64, encodeBase64 } from './protocol/base64.js';
export { canonicalJson } from './protocol/jcs.js';
export { canonicalCardPayload } from './protocol/card-canonical.js';
export { newUuid } from './protocol/uuid.js';

export { encodeSseComment, encodeSseEvent } from './protocol/sse-encoder.js';
export type { SseEventInit } from './protocol/sse-encoder.js';
export {
  DEFAULT_MAX_EVENT_LENGTH,
  SseDecoder,
  SseEventTooLargeError,
  decodeSseStream,
} from './protocol/sse-decoder.js';
export type { SseDecoderOptions, SseEvent } from './protocol/sse-decoder.js';

export { enumDescriptors, messageDescriptors } from './protocol/generated/descriptors.js';
export type {
  EnumDescriptor,
  FieldDescriptor,
  FieldKind,
  MessageDescriptor,
  MethodDescriptor,
  OneofDescriptor,
} from './protocol/descriptor.js';
