/**
 * The identity hook: who is calling. It runs once per call, before the binding handles it, and its
 * principal reaches the runtime in the call context, which scopes every task to it (spec 13.1). It
 * sees only what every binding can hand it — service parameters (HTTP headers or gRPC metadata),
 * the query string over HTTP, the peer address and TLS client certificate — so that JSON-RPC,
 * HTTP+JSON and gRPC authenticate identically (spec 5.1).
 *
 * A refusal is a local error, {@link AuthenticationError}: authentication is transport-level in A2A
 * (spec 7), so it is not one of the A2A wire errors; each binding answers it in its own form
 * (HTTP 401 or 403 with `WWW-Authenticate` and the binding's error body, gRPC `UNAUTHENTICATED` or
 * `PERMISSION_DENIED`).
 *
 * Both servers run it through {@link identifyCaller}, which also holds off an address that failed
 * too often (`failed-authentication-limiter.ts`) and logs every refusal with the same fields,
 * whatever the binding.
 */

import { recordAuthRefusal, recordLimitRefusal } from '../../telemetry/refusal-metrics.js';
import type { SecurityRequirement, SecurityScheme } from '../../protocol/generated/types.js';
import type { HeaderReader, PeerIdentity } from './http-exchange.js';
import { LocalError } from '../../protocol/local-errors.js';
import { ANONYMOUS, type Principal } from '../../runtime/call-context.js';
import type { LimitExceededError } from './call-limit-options.js';
import type { Logger } from '../../runtime/logger.js';
import type { FailedAuthenticationLimiter } from './failed-authentication-limiter.js';

/** What an authenticator sees of a call. */
export interface AuthenticationRequest {
  /** The binding the call came through: `JSONRPC`, `HTTP+JSON`, `GRPC`... */
  readonly binding: string;
  /** Service parameters and credentials by lower-case name (`authorization`, `x-api-key`...). */
  readonly headers: HeaderReader;
  /** The raw query string without `?` (HTTP bindings; `''` elsewhere), for API keys in the query. */
  readonly query: string;
  readonly peer: PeerIdentity;
}

/**
 * The {@link AuthenticationRequest} both servers build for a call: the peer comes from `source`
 * only when an authenticator asks (reading it touches the socket). A class, not an object literal
 * with a getter: such a literal gets a hidden class of its own on every evaluation.
 */
export class CallAuthenticationRequest implements AuthenticationRequest {
  readonly #source: { readonly peer: PeerIdentity };

  constructor(
    readonly binding: string,
    readonly headers: HeaderReader,
    readonly query: string,
    source: { readonly peer: PeerIdentity },
  ) {
    this.#source = source;
  }

  get peer(): PeerIdentity {
    return this.#source.peer;
  }
}

/**
 * Decides who is calling: a principal, or a refusal — returned or thrown as an
 * {@link AuthenticationError}. Anything else it throws is a server fault (logged, answered 500).
 */
export type Authenticator = (
  request: AuthenticationRequest,
) => Principal | AuthenticationError | Promise<Principal | AuthenticationError>;

/**
 * One way of authenticating, with its declaration for the agent card: the card must say exactly
 * what is enforced (spec 7.3), so both come from one value.
 */
export interface ServerAuthentication {
  readonly authenticate: Authenticator;
  /** The card's `securitySchemes` entries, by scheme name. */
  readonly securitySchemes: Readonly<Record<string, SecurityScheme>>;
  /**
   * The card's `securityRequirements`: a client satisfies the card by meeting any one of them
   * (each names the schemes it needs together, with their scopes).
   */
  readonly securityRequirements: readonly SecurityRequirement[];
}

/** Why a call was refused before it reached its operation. */
export class AuthenticationError extends LocalError {
  /**
   * @param message what the client should do, never whether a task exists, never a credential.
   * @param options `status` 401 (no or bad credentials, the default) or 403 (authenticated, not
   *   allowed); `challenges`: the `WWW-Authenticate` values naming the schemes to use;
   *   `credentialsPresented`: the request carried credentials of this method (they were wrong),
   *   rather than none.
   */
  constructor(
    message: string,
    options: {
      readonly status?: 401 | 403;
      readonly challenges?: readonly string[];
      readonly credentialsPresented?: boolean;
      readonly cause?: unknown;
    } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = options.status ?? 401;
    this.challenges = options.challenges ?? [];
    this.credentialsPresented = options.credentialsPresented ?? false;
  }

  readonly status: 401 | 403;
  readonly challenges: readonly string[];
  readonly credentialsPresented: boolean;
}

/** The authenticator of a server without authentication: every caller is {@link ANONYMOUS}. */
export const anonymousAuthenticator: Authenticator = () => ANONYMOUS;

/** What the identity hook says of a call. */
export type IdentityVerdict = Principal | AuthenticationError | LimitExceededError;

/**
 * Runs `authenticate`: its refusal, thrown or returned, becomes the value; any other exception
 * is a server fault. Synchronous when the authenticator is (the anonymous one is): a call pays
 * for no promise it does not need.
 */
function authenticateCall(
  authenticate: Authenticator,
  request: AuthenticationRequest,
): Principal | AuthenticationError | Promise<Principal | AuthenticationError> {
  let verdict: ReturnType<Authenticator>;
  try {
    verdict = authenticate(request);
  } catch (error) {
    return refusalOrRethrow(error);
  }
  if (!isPromiseLike(verdict)) return verdict;
  return Promise.resolve(verdict).catch(refusalOrRethrow);
}

/** A thrown refusal as the verdict; anything else thrown again, as the server fault it is. */
function refusalOrRethrow(error: unknown): AuthenticationError {
  if (error instanceof AuthenticationError) return error;
  throw error;
}

/** A user's authenticator may hand back any thenable, not only a native promise. */
function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as Partial<PromiseLike<T>> | null)?.then === 'function';
}

/** What a server runs the identity hook with. */
export interface IdentityCheck {
  readonly authenticate: Authenticator;
  /** Failed authentications per address; `undefined` for no limit. */
  readonly failures: FailedAuthenticationLimiter | undefined;
  readonly logger: Logger;
}

/**
 * Who is calling, or why the call is refused: an {@link AuthenticationError}, or a
 * `LimitExceededError` when its address failed to authenticate too often (then its credentials
 * are not even checked). Every refusal is logged here, at `warn`, with the same fields on every
 * binding: the binding, the path (the gRPC method's path over gRPC), the peer address, and the
 * refusal's status and reason or the limit — never a credential. Synchronous when the
 * authenticator is; throws or rejects with nothing but a server fault.
 *
 * @param path what the call was for, for the log.
 */
export function identifyCaller(
  check: IdentityCheck,
  request: AuthenticationRequest,
  path: string,
): IdentityVerdict | Promise<IdentityVerdict> {
  // The peer is read only when needed: an HTTP request makes it on first access.
  const failures = check.failures;
  const held = failures?.check(request.peer.address);
  if (held !== undefined) {
    recordLimitRefusal(held.limit);
    recordAuthRefusal('too_many_failures', request.binding);
    check.logger.warn(
      {
        binding: request.binding,
        path,
        limit: held.limit,
        caller: `address:${request.peer.address ?? 'unknown'}`,
        retryAfterSeconds: held.retryAfterSeconds,
      },
      'a call was refused by a limit',
    );
    return held;
  }
  const verdict = authenticateCall(check.authenticate, request);
  return verdict instanceof Promise
    ? verdict.then((settled) => refusalLogged(check, request, path, settled))
    : refusalLogged(check, request, path, verdict);
}

/** A refusal, counted against its address and logged; a principal as it is. */
function refusalLogged(
  check: IdentityCheck,
  request: AuthenticationRequest,
  path: string,
  verdict: Principal | AuthenticationError,
): Principal | AuthenticationError {
  if (!(verdict instanceof AuthenticationError)) return verdict;
  const address = request.peer.address;
  if (verdict.status === 401) check.failures?.recordFailure(address);
  recordAuthRefusal(verdict.status === 401 ? 'unauthenticated' : 'forbidden', request.binding);
  // The reason is the refusal's own message, which never holds a credential.
  check.logger.warn(
    {
      binding: request.binding,
      path,
      status: verdict.status,
      reason: verdict.message,
      credentialsPresented: verdict.credentialsPresented,
      peer: address,
    },
    'refused a call that did not authenticate',
  );
  return verdict;
}
