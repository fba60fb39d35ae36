/**
 * Reading what an agent answered into validated 1.0 values, with the protocol's own readers: a
 * 1.0 answer is parsed against its proto message (`parseOperationResult`, `parseStreamPayload`:
 * every violated field named), a 0.3 answer first goes through the 0.3 translators the client
 * uses (JSON-RPC's kind-tagged JSON, or the ProtoJSON of the 0.3 proto on HTTP+JSON and gRPC).
 * A value that cannot be read is a problem sentence, never an exception: it is the agent's
 * defect, reported by the check that met it.
 */

import type { StreamResponse } from '../../protocol/generated/types.js';
import type { UnaryOperationName } from '../../bindings/client/client-transport.js';
import {
  parseOperationResult,
  parseStreamPayload,
} from '../../bindings/client/response-validation.js';
import { ProtocolViolationError } from '../../bindings/client/transport-errors.js';
import { translate, UntranslatableError } from '../../bindings/v0_3/translate/untranslatable.js';
import { streamEventFromProto } from '../../bindings/v0_3/translate/v03-protojson.js';
import { resultFromProto } from '../../bindings/v0_3/translate/v03-protojson-results.js';
import { resultFromV03 } from '../../bindings/v0_3/translate/v03-results.js';
import { streamEventFromV03 } from '../../bindings/v0_3/translate/v03-task.js';
import type { CheckProtocolVersion } from '../check-types.js';

/** How a 0.3 answer is written: kind-tagged JSON (JSON-RPC) or the 0.3 proto's ProtoJSON. */
export type V03Form = 'json' | 'protojson';

/** A value read, or why it could not be. */
export type Read<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };

function problemOf(error: unknown): string {
  if (error instanceof ProtocolViolationError || error instanceof UntranslatableError) {
    return error.message;
  }
  throw error;
}

/** Reads the result of a unary operation. */
export function readResult(
  version: CheckProtocolVersion,
  form: V03Form,
  operation: UnaryOperationName,
  raw: unknown,
  where: string,
): Read<unknown> {
  try {
    let value = raw;
    if (version === '0.3') {
      const tagged = form === 'protojson' ? resultFromProto(operation, raw) : raw;
      value = resultFromV03(operation, tagged);
    }
    return { ok: true, value: parseOperationResult(operation, value as never, where) };
  } catch (error) {
    return { ok: false, problem: problemOf(error) };
  }
}

/** One stream event read, with whether a 0.3 agent marked it final. */
export interface EventRead {
  readonly payload: StreamResponse;
  readonly final: boolean;
}

/** Reads one event of a stream. */
export function readEvent(
  version: CheckProtocolVersion,
  form: V03Form,
  raw: unknown,
  where: string,
): Read<EventRead> {
  try {
    if (version === '1.0') {
      return { ok: true, value: { payload: parseStreamPayload(raw, where), final: false } };
    }
    const tagged = form === 'protojson' ? streamEventFromProto(raw) : raw;
    const translated = translate('An A2A 0.3 event', (issues) =>
      streamEventFromV03(tagged, 'event', issues),
    );
    if (translated === undefined)
      return { ok: false, problem: `${where} sent an event that cannot be read` };
    return {
      ok: true,
      value: { payload: parseStreamPayload(translated.event, where), final: translated.final },
    };
  } catch (error) {
    return { ok: false, problem: problemOf(error) };
  }
}
