/**
 * The scopes of one agent's tasks, one frozen object per (tenant, owner): the runtime hands a
 * store the same object for every call made on behalf of the same caller, which the store seam
 * allows a store to recognise by identity (see `TaskScope` in `stores/task-store.ts`).
 */

import type { TaskReadScope, TaskScope } from '../stores/task-store.js';
import type { CallContext } from './call-context.js';

/** Interned scopes of one agent. */
export class TaskScopes {
  readonly #agent: string;
  readonly #byTenant = new Map<string, Map<string, TaskScope>>();
  readonly #everyOwner = new Map<string, TaskReadScope>();

  constructor(agent: string) {
    this.#agent = agent;
  }

  /** The scope of the caller of `call`. */
  of(call: CallContext): TaskScope {
    const { tenant } = call;
    const owner = call.principal.id;
    let byOwner = this.#byTenant.get(tenant);
    if (byOwner === undefined) {
      byOwner = new Map();
      this.#byTenant.set(tenant, byOwner);
    }
    let scope = byOwner.get(owner);
    if (scope === undefined) {
      scope = Object.freeze({ agent: this.#agent, tenant, owner });
      byOwner.set(owner, scope);
    }
    return scope;
  }

  /** The scope of reads across every owner of the caller's tenant (an access policy's grant). */
  everyOwnerOf(call: CallContext): TaskReadScope {
    let scope = this.#everyOwner.get(call.tenant);
    if (scope === undefined) {
      scope = Object.freeze({ agent: this.#agent, tenant: call.tenant, owner: null });
      this.#everyOwner.set(call.tenant, scope);
    }
    return scope;
  }
}
