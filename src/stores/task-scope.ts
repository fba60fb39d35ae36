/**
 * Who a task belongs to and who may read it: the scope every store operation names. A seam of its
 * own below the task log and the push configs, which both take it.
 */

/**
 * Who may see a task: the agent that owns it, the tenant and the principal that created it.
 *
 * The runtime hands a store the same frozen scope object for every call it makes on behalf of
 * one (agent, tenant, owner), for as long as the agent is served. A store may use that identity
 * as a shortcut — the memory store remembers, in a `WeakMap`, the key it derived from a scope
 * object, so that creating a task does not build the key string again — but must treat two equal
 * scopes as the same scope whatever their identity: tests, tools and other processes pass their
 * own objects.
 */
export interface TaskScope {
  readonly agent: string;
  readonly tenant: string;
  readonly owner: string;
}

/**
 * Where a read looks: a {@link TaskScope}, or — with `owner: null` — the tasks of every owner of
 * the agent and tenant. Only an operator's access policy widens a read so (see
 * `TaskAccessPolicy`); a caller's own reads always name its owner. Writes always take a
 * {@link TaskScope}.
 */
export interface TaskReadScope {
  readonly agent: string;
  readonly tenant: string;
  readonly owner: string | null;
}
