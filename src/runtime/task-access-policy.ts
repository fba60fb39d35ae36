/**
 * The operator's hook for granting a caller more than its own tasks (spec 13.1 scopes every task
 * to the principal and tenant that created it). Deliberately narrow: a policy can only widen the
 * owner filter of reads — GetTask, ListTasks and SubscribeToTask (with its resumption) then see
 * the tasks of every owner within the caller's tenant, e.g. for an administrator or an auditor.
 * Writes stay the owner's: continuing a task, canceling it and its push configs are never
 * widened, and no policy crosses tenants. Without a policy every caller reads its own tasks only.
 *
 * @example `tandem serve --admin ops`, in code:
 * ```ts
 * const accessPolicy: TaskAccessPolicy = ({ principal }) => ({
 *   readAllOwners: !principal.anonymous && principal.id === 'ops',
 * });
 * createRequestHandler({ agent, runtime, accessPolicy });
 * ```
 */

import type { Caller } from './agent.js';

/** What a policy grants one caller. */
export interface TaskAccess {
  /** Read the tasks of every owner of the caller's tenant. Default false. */
  readonly readAllOwners?: boolean;
}

/** Decides, for each read, what its caller may see beyond its own tasks. */
export type TaskAccessPolicy = (caller: Caller) => TaskAccess;

/** The policy of `tandem serve --admin P`: principals `admins` read every owner's tasks. */
export function adminPolicy(admins: readonly string[]): TaskAccessPolicy {
  const names = new Set(admins);
  return ({ principal }) => ({ readAllOwners: !principal.anonymous && names.has(principal.id) });
}
