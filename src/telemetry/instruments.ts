/**
 * The instruments of the catalogue, created on the meter of whichever provider is registered
 * when they are first used, and again when the application registers another one: the metrics
 * API, unlike the trace API, has no proxy, so an instrument created before the SDK would record
 * into a no-op forever.
 */

import {
  metrics,
  type Counter,
  type Histogram,
  type Meter,
  type MeterProvider,
  type UpDownCounter,
} from '@opentelemetry/api';
import {
  INSTRUMENTS,
  type InstrumentDefinition,
  type InstrumentKey,
} from './instrument-catalogue.js';
import { tandemMeter } from './telemetry-scope.js';

/** The instrument type of each kind. */
type InstrumentOf<D extends InstrumentDefinition> = D['kind'] extends 'histogram'
  ? Histogram
  : D['kind'] extends 'counter'
    ? Counter
    : UpDownCounter;

/** One instrument of each metric of the catalogue. */
export type TandemInstruments = {
  readonly [K in InstrumentKey]: InstrumentOf<(typeof INSTRUMENTS)[K]>;
};

function create(
  meter: Meter,
  definition: InstrumentDefinition,
): Histogram | Counter | UpDownCounter {
  const options = { unit: definition.unit, description: definition.description };
  switch (definition.kind) {
    case 'histogram':
      return meter.createHistogram(definition.name, {
        ...options,
        // Honoured by SDKs that read the API's advice (1.7 on); the preset sets views as well.
        advice: { explicitBucketBoundaries: [...(definition.buckets ?? [])] },
      });
    case 'counter':
      return meter.createCounter(definition.name, options);
    case 'updown-counter':
    case 'gauge':
      return meter.createUpDownCounter(definition.name, options);
  }
}

let boundTo: MeterProvider | undefined;
let current: TandemInstruments | undefined;

/**
 * The instruments on the registered provider's meter. Cheap to call on every measurement: it
 * compares the registered provider with the one the instruments were made on.
 */
export function tandemInstruments(): TandemInstruments {
  const provider = metrics.getMeterProvider();
  if (current === undefined || provider !== boundTo) {
    const meter = tandemMeter();
    const made: Record<string, Histogram | Counter | UpDownCounter> = {};
    for (const [key, definition] of Object.entries(INSTRUMENTS)) {
      made[key] = create(meter, definition);
    }
    current = made as unknown as TandemInstruments;
    boundTo = provider;
  }
  return current;
}
