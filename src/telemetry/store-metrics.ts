/**
 * The store metrics: `a2a.server.store.operation.duration` of each task store operation the
 * runtime makes, by operation and store kind, through {@link instrumentStore}, a wrapper the
 * runtime puts around its store; and the kind attribute of the other store metrics (lease
 * takeovers, change-feed resyncs, batch sizes). Structural, so that telemetry needs nothing of
 * the stores.
 */

import type { Attributes } from '@opentelemetry/api';
import { errorTypeOf } from './error-type.js';
import { ATTR_DB_OPERATION_NAME, ATTR_DB_SYSTEM_NAME } from './instrument-catalogue.js';
import { tandemInstruments } from './instruments.js';
import { ATTR_ERROR_TYPE } from './telemetry-attributes.js';

/** The operations timed: the reads and writes of the task store itself. */
const TIMED = ['createTask', 'append', 'getTask', 'listTasks', 'readEvents'] as const;

const KINDS: Readonly<Record<string, string>> = {
  MemoryTaskStore: 'memory',
  SqliteTaskStore: 'sqlite',
  PostgresTaskStore: 'postgresql',
};

/** `db.system.name` of a store: `memory`, `sqlite`, `postgresql`, or `other` for one's own. */
export function storeKindOf(store: object): string {
  return KINDS[store.constructor.name] ?? 'other';
}

const kindAttributes = new Map<string, Attributes>();

/** The attributes of a store-wide metric of `store`. */
export function storeAttributes(store: object): Attributes {
  const kind = storeKindOf(store);
  let attributes = kindAttributes.get(kind);
  if (attributes === undefined) {
    attributes = { [ATTR_DB_SYSTEM_NAME]: kind };
    kindAttributes.set(kind, attributes);
  }
  return attributes;
}

type Operation = (...args: unknown[]) => Promise<unknown>;

/**
 * `store`, with each of its operations timed. The wrapper is the store for every other member
 * (`topology`, `leases`, `changeFeed`, `push`, `close`...), read through to the store itself.
 */
export function instrumentStore<S extends object>(store: S): S {
  const kind = storeKindOf(store);
  const wrapped = new Map<PropertyKey, Operation>();
  for (const name of TIMED) {
    const operation = (store as Record<string, unknown>)[name];
    if (typeof operation !== 'function') continue;
    const ok: Attributes = { [ATTR_DB_SYSTEM_NAME]: kind, [ATTR_DB_OPERATION_NAME]: name };
    // The store's own promise is returned, not one of the wrapper's: the writers rely on when a
    // write settles (a failed append is seen before the next is sent), and an async wrapper
    // would settle every write a few turns later.
    wrapped.set(name, (...args: unknown[]) => {
      const start = performance.now();
      const result = (operation as Operation).apply(store, args);
      result.then(
        () => {
          tandemInstruments().serverStoreDuration.record((performance.now() - start) / 1000, ok);
        },
        (error: unknown) => {
          tandemInstruments().serverStoreDuration.record((performance.now() - start) / 1000, {
            ...ok,
            [ATTR_ERROR_TYPE]: errorTypeOf(error),
          });
        },
      );
      return result;
    });
  }
  // Read on the store itself, and its methods bound to it: a store's private fields (`#pool`)
  // are not the wrapper's.
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, property) {
      const timed = wrapped.get(property);
      if (timed !== undefined) return timed;
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      let method = bound.get(property);
      if (method === undefined) {
        method = (value as Operation).bind(target);
        bound.set(property, method);
      }
      return method;
    },
  });
}

const batchAttributes = new Map<string, Attributes>();

/** `writes` committed together in one batch of a store of `kind` (`postgresql`). */
export function recordBatchSize(kind: string, writes: number): void {
  let attributes = batchAttributes.get(kind);
  if (attributes === undefined) {
    attributes = { [ATTR_DB_SYSTEM_NAME]: kind };
    batchAttributes.set(kind, attributes);
  }
  tandemInstruments().serverStoreBatchSize.record(writes, attributes);
}
