/**
 * What every probe of one run shares: the HTTP and gRPC wires, the credentials and how they go
 * on the wire, the caller's headers, the time limit of a request, the run's abort signal, and the
 * secrets to mask in the report.
 */

import type { AppliedAuth } from '../../client/client-auth.js';
import type { GrpcWire } from '../wire/grpc-wire.js';
import type { HttpWire } from '../wire/http-wire.js';
import type { Secrets } from '../wire/wire-exchange.js';

/** The shared means of the probes of one run. */
export interface ProbeEnvironment {
  readonly http: HttpWire;
  readonly grpc: GrpcWire;
  readonly secrets: Secrets;
  /** The credentials as they go on the wire (headers, and an API key's query parameter). */
  readonly credentials: AppliedAuth;
  /** Headers the caller added to every request. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  /** Time limit of one request (of a stream: of the wait for each event), in ms. */
  readonly timeoutMs: number;
  /** The run's signal: aborting it stops every request. */
  readonly signal: AbortSignal;
}

/** A signal that fires at the run's abort or after `timeoutMs`. */
export function requestSignal(environment: ProbeEnvironment, timeoutMs?: number): AbortSignal {
  return AbortSignal.any([
    environment.signal,
    AbortSignal.timeout(timeoutMs ?? environment.timeoutMs),
  ]);
}

/**
 * Whether a failure is the run's abort, which ends the whole run, rather than a request's own
 * time limit, which is the agent's failure to answer.
 */
export function isRunAbort(environment: ProbeEnvironment): boolean {
  return environment.signal.aborted;
}
