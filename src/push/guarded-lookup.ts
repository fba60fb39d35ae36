/**
 * Name resolution for webhook connections, checked on the address actually dialled: the socket
 * connects to what this lookup answers, and it answers only addresses the destination policy
 * admits, so a name that resolved to a public address when the config was created and to a
 * private one now (DNS rebinding) is refused at connect time.
 */

import type { LookupAddress, LookupOptions } from 'node:dns';
import type * as NodeDns from 'node:dns/promises';
import { createRequire } from 'node:module';
import type { DestinationPolicy } from './destination-policy.js';

/** Resolves a host name to its addresses (the system resolver by default; tests bring theirs). */
export type HostResolver = (hostname: string) => Promise<readonly LookupAddress[]>;

let dns: typeof NodeDns | undefined;

/**
 * The system's resolver (`getaddrinfo`, as Node's own connections use). node:dns is loaded at
 * the first lookup, not at start-up.
 */
export const systemResolver: HostResolver = (hostname) => {
  dns ??= createRequire(import.meta.url)('node:dns/promises') as typeof NodeDns;
  return dns.lookup(hostname, { all: true, verbatim: true });
};

/** A destination the policy refuses: never retried, never dialled. */
export class DestinationRefusedError extends Error {
  override readonly name = 'DestinationRefusedError';
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** The `lookup` option of a socket: resolves with `resolver`, then applies `policy`. */
export function guardedLookup(
  policy: DestinationPolicy,
  resolver: HostResolver,
  checked: boolean,
): (hostname: string, options: LookupOptions, callback: LookupCallback) => void {
  return (hostname, options, callback) => {
    resolver(hostname).then(
      (found) => {
        const addresses = found.filter(
          (entry) =>
            options.family === undefined || options.family === 0 || entry.family === options.family,
        );
        if (checked) {
          for (const { address } of addresses) {
            const reason = policy.checkAddress(address);
            if (reason !== undefined) {
              callback(new DestinationRefusedError(`${hostname} resolves to ${reason}`), '');
              return;
            }
          }
        }
        const first = addresses[0];
        if (first === undefined) {
          const error: NodeJS.ErrnoException = new Error(`${hostname} has no address`);
          error.code = 'ENOTFOUND';
          callback(error, '');
        } else if (options.all === true) {
          callback(null, addresses.slice());
        } else {
          callback(null, first.address, first.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}
