/**
 * Push delivery metrics, recorded by the config worker after each webhook attempt: attempts and
 * failures by a low-cardinality reason (the HTTP status, `timeout`, `connection`,
 * `refused_destination`, `redirect`, `canceled`), the time from a delivery's first attempt to its
 * 2xx (retries and their backoff included), and the configs whose deliveries are failing.
 */

import type { Attributes } from '@opentelemetry/api';
import { tandemInstruments } from './instruments.js';
import { ATTR_ERROR_TYPE } from './telemetry-attributes.js';

/** An attempt's outcome, as the webhook POST reports it. */
export type PushAttemptOutcome =
  | { readonly kind: 'delivered'; readonly status: number }
  | { readonly kind: 'retry' | 'permanent'; readonly reason: string };

/** The reason class of a failed attempt: never the reason's text, which holds URLs. */
export function pushFailureType(reason: string): string {
  const status = /^HTTP (\d{3})\b/.exec(reason);
  if (status !== null) return status[1] as string;
  if (reason.startsWith('no answer within')) return 'timeout';
  if (reason.startsWith('the webhook URL')) return 'refused_destination';
  if (reason.includes('redirect')) return 'redirect';
  if (reason.startsWith('delivery stopped')) return 'canceled';
  return 'connection';
}

const NONE: Attributes = Object.freeze({});
const byType = new Map<string, Attributes>();

function attributesOf(type: string): Attributes {
  let attributes = byType.get(type);
  if (attributes === undefined) {
    attributes = { [ATTR_ERROR_TYPE]: type };
    if (byType.size < 256) byType.set(type, attributes);
  }
  return attributes;
}

/** The first attempt of the delivery each worker is making, by worker. */
const firstAttempts = new WeakMap<object, { readonly seq: number; readonly at: number }>();

/**
 * One attempt of `worker`'s delivery up to `seq` ended with `outcome`; `before` is the config's
 * delivery state before it, `failingAfter` the failures that mark a config failing.
 */
export function recordPushAttempt(
  worker: object,
  seq: number,
  outcome: PushAttemptOutcome,
  before: { readonly failing: boolean; readonly failures: number },
  failingAfter: number,
): void {
  const instruments = tandemInstruments();
  const first = firstAttempts.get(worker);
  const startedAt = first?.seq === seq ? first.at : performance.now();
  if (outcome.kind === 'delivered') {
    instruments.serverPushAttempts.add(1, NONE);
    instruments.serverPushLatency.record((performance.now() - startedAt) / 1000, NONE);
    firstAttempts.delete(worker);
    if (before.failing) instruments.serverPushFailingConfigs.add(-1, NONE);
    return;
  }
  const attributes = attributesOf(pushFailureType(outcome.reason));
  instruments.serverPushAttempts.add(1, attributes);
  instruments.serverPushFailures.add(1, attributes);
  if (outcome.kind === 'permanent') firstAttempts.delete(worker);
  else if (first?.seq !== seq) firstAttempts.set(worker, { seq, at: startedAt });
  if (!before.failing && before.failures + 1 >= failingAfter) {
    instruments.serverPushFailingConfigs.add(1, NONE);
  }
}

/** The deliveries each worker last reported pending. */
const pendingOf = new WeakMap<object, number>();

/**
 * `worker` has `pending` deliveries yet to make (events not yet delivered); 0 once it stops. The
 * up-down counter moves by the difference from what it last reported.
 */
export function recordPushPending(worker: object, pending: number): void {
  const now = Math.max(0, pending);
  const before = pendingOf.get(worker) ?? 0;
  if (now === before) return;
  pendingOf.set(worker, now);
  tandemInstruments().serverPushPending.add(now - before, NONE);
}
