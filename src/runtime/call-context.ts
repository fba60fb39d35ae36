/**
 * Who is calling and how: the part of a request that is not its payload. Bindings build a
 * {@link CallContext} from their transport (HTTP headers, gRPC metadata) and hand it to the request
 * handler, which scopes every task to its principal and tenant (spec 13.1).
 *
 * Three names, one caller: the {@link Principal} is the authenticated identity; the
 * {@link CallContext} is everything a binding knows of one call (principal, tenant, extensions,
 * version, resume position, signal); an agent sees the part of it that concerns the task, the
 * principal and the tenant, as `ctx.caller` (the `Caller` type of the agent API).
 */

/**
 * The authenticated caller, as the server's identity hook decided; {@link ANONYMOUS} when the
 * server authenticates no one or the call carried no credentials.
 */
export interface Principal {
  /** Stable identifier of the caller; tasks are owned by it. */
  readonly id: string;
  /** True when the request carried no credentials. */
  readonly anonymous: boolean;
}

/** The principal of unauthenticated requests. */
export const ANONYMOUS: Principal = Object.freeze({ id: 'anonymous', anonymous: true });

/** The transport-independent context of one call. */
export interface CallContext {
  readonly principal: Principal;
  /**
   * The tenant the request addresses (the `tenant` field of the request, or of the interface it
   * came through); `''` when there is none. Tasks are only visible within their tenant.
   */
  readonly tenant: string;
  /** Extension URIs the client asked for (`A2A-Extensions`). */
  readonly requestedExtensions: readonly string[];
  /** The `Major.Minor` protocol version the request was made with. */
  readonly protocolVersion: string;
  /**
   * For `SubscribeToTask`: resume after this sequence number of the task's event log (the SSE
   * bindings read it from `Last-Event-ID`); absent for a fresh subscription.
   */
  readonly afterSeq?: number | undefined;
  /** Fires when the client goes away; never cancels the task itself. */
  readonly signal?: AbortSignal | undefined;
  /**
   * The client's network address, when the transport knows it: per-address limits apply to
   * anonymous callers, who share one principal.
   */
  readonly peerAddress?: string | undefined;
}

/** Builds a call context with defaults for everything not given. */
export function createCallContext(init: Partial<CallContext> = {}): CallContext {
  return {
    principal: init.principal ?? ANONYMOUS,
    tenant: init.tenant ?? '',
    requestedExtensions: init.requestedExtensions ?? [],
    protocolVersion: init.protocolVersion ?? '1.0',
    afterSeq: init.afterSeq,
    signal: init.signal,
  };
}
