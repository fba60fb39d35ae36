/**
 * The routes of the HTTP+JSON binding, read from the proto's `google.api.http` mapping
 * (`operations[op].http`) rather than restated: each operation at its path, and again under the
 * `/{tenant}` prefix of the proto's additional binding. `SubscribeToTask` is routed on both GET (the
 * proto) and POST (the prose of spec 5.3 and 11.3.2), since clients in the wild use both; every
 * POST reads its body (for that POST, the request message minus its path variable). The GET
 * routes that answer once are also routed for HEAD (RFC 9110 9.3.2).
 */

import type { RouteMethod } from '../server/server-binding.js';
import { OPERATION_NAMES, operations, type OperationName } from '../../protocol/operations.js';

/** One route of an operation. */
export interface RestRouteTemplate {
  readonly operation: OperationName;
  readonly method: RouteMethod;
  /** The template below the interface URL, e.g. `/{tenant}/tasks/{id=*}:cancel`. */
  readonly path: string;
  /** The request is the JSON body (POST), else query parameters (GET, HEAD, DELETE). */
  readonly body: boolean;
}

/** Every route of the binding, the untenanted one of each operation first. */
export const REST_ROUTES: readonly RestRouteTemplate[] = OPERATION_NAMES.flatMap((operation) => {
  const { http } = operations[operation];
  const methods: RouteMethod[] =
    operation === 'SubscribeToTask'
      ? [http.method, 'POST']
      : http.method === 'GET'
        ? ['GET', 'HEAD']
        : [http.method];
  return methods.flatMap((method) => {
    const body = method === 'POST' || method === 'PUT' || method === 'PATCH';
    return [
      { operation, method, path: http.path, body },
      { operation, method, path: `/{tenant}${http.path}`, body },
    ];
  });
});

/** The proto name of a path variable (`{task_id=*}` → `task_id`). */
export function pathVariablesOf(template: string): string[] {
  return [...template.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)(?:=\*)?\}/g)].map(
    (match) => match[1] as string,
  );
}
