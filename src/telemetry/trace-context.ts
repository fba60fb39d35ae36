/**
 * W3C Trace Context and Baggage (`traceparent`, `tracestate`, `baggage`) carried as A2A service
 * parameters: HTTP headers on JSON-RPC and HTTP+JSON, metadata on gRPC. The propagators are the
 * application's (those the SDK registers with the API); with none registered, nothing is written.
 */

import {
  context,
  propagation,
  type Context,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';

const headersSetter: TextMapSetter<Headers> = {
  set(carrier, key, value) {
    carrier.set(key, value);
  },
};

/** Writes the context (default: the active one) into `headers`, replacing what was there. */
export function injectTraceContext(headers: Headers, from: Context = context.active()): void {
  propagation.inject(from, headers, headersSetter);
}

/** Reads one service parameter by its lower-case name; `undefined` when absent. */
export type ServiceParameterReader = (name: string) => string | undefined;

const readerGetter: TextMapGetter<ServiceParameterReader> = {
  get(carrier, key) {
    return carrier(key.toLowerCase());
  },
  keys() {
    // The W3C propagators ask for their fields by name; nothing enumerates the carrier.
    return [];
  },
};

/** The context a caller sent, read on top of `base` (default: the root context). */
export function extractTraceContext(
  read: ServiceParameterReader,
  base: Context = context.active(),
): Context {
  return propagation.extract(base, read, readerGetter);
}
