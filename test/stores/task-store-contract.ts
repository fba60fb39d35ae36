/**
 * The behaviour every `TaskStore` must have, written against the interface only. Each store's
 * test file runs it with a function that opens a fresh, empty store:
 *
 * ```ts
 * describeTaskStoreContract('sqlite', async () => {
 *   const store = SqliteTaskStore.open({ path: freshFile() });
 *   return { store, close: () => store.close() };
 * });
 * ```
 *
 * Time-based checks (lease expiry) use real clocks with short leases, so a store may read the
 * time from its database server. Results are compared with `toEqual`: a property set to
 * `undefined` equals an absent one, as it does once serialized.
 */

import { describe } from 'vitest';
import { describeBasics } from './contract/basics.contract.js';
import type { OpenStore } from './contract/builders.js';
import { describeConcurrency } from './contract/concurrency.contract.js';
import { describeListing } from './contract/listing.contract.js';
import { describeProjection } from './contract/projection.contract.js';
import { describePush } from './contract/push.contract.js';
import { describePipelinedReference, describeReference } from './contract/reference.contract.js';
import { describeUpkeep } from './contract/upkeep.contract.js';

export type { OpenStore, OpenedStore } from './contract/builders.js';

/** Declares the contract suite for the store that `open` creates, under `name`. */
export function describeTaskStoreContract(name: string, open: OpenStore): void {
  describe(`TaskStore contract: ${name}`, () => {
    describeBasics(open);
    describeProjection(open);
    describeListing(open);
    describeUpkeep(open);
    describeConcurrency(open);
    describeReference(open);
    describePipelinedReference(open);
    describePush(open);
  });
}
