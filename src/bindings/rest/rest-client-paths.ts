/**
 * The HTTP+JSON request of an operation, read from the proto's `google.api.http` mapping
 * (`methodDescriptors`) rather than restated by hand:
 * - path variables (`/tasks/{id=*}`) are filled from the request fields of the same name and
 *   percent-encoded, so an id containing `/` or `:` stays one segment;
 * - a `tenant` becomes the path prefix of the proto's additional binding (`/{tenant}/tasks/...`);
 * - with `body: "*"` every other field goes in the JSON body;
 * - without a body (GET, DELETE) every other field becomes a query parameter as spec 11.5 says:
 *   camelCase names, strings as they are, numbers in decimal, booleans in lower case, repeated
 *   fields as repeated parameters. Nested objects cannot be expressed and are refused.
 */

import { messageDescriptors } from '../../protocol/generated/descriptors.js';
import { UsageError } from '../../protocol/local-errors.js';
import { operations, type OperationName } from '../../protocol/operations.js';

/** Where and how to send one operation. */
export interface RestRoute {
  readonly method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
  /** The interface URL plus the operation's path and query. */
  readonly url: string;
  /** The JSON body, for mappings with `body: "*"`. */
  readonly body?: string;
}

const PATH_VARIABLE = /\{([a-z_][a-z0-9_]*)(?:=[^}]*)?\}/g;

/** The JSON name of a request field given its proto name (`task_id` → `taskId`). */
function jsonNameOf(requestType: string, protoName: string): string {
  const descriptor = messageDescriptors[requestType as keyof typeof messageDescriptors];
  const field = descriptor.fields.find((f) => f.protoName === protoName);
  return field?.name ?? protoName.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

function queryValue(operation: string, name: string, value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      throw new UsageError(
        `${operation}.${name} cannot be sent as a query parameter (spec 11.5 allows scalars and ` +
          'repeated scalars only)',
      );
  }
}

/** Joins the interface URL and an operation path, keeping the interface's own path and query. */
function joinUrl(base: string, path: string, query: URLSearchParams): string {
  const url = new URL(base);
  url.pathname = url.pathname.replace(/\/+$/, '') + path;
  for (const [name, value] of query) url.searchParams.append(name, value);
  return url.toString();
}

/**
 * Builds the HTTP request line and body of an operation.
 *
 * @param baseUrl the interface URL (absolute).
 * @throws UsageError when a path field is missing or a GET field cannot be a query parameter.
 */
export function restRoute(
  operation: OperationName,
  request: object,
  baseUrl: string,
  method?: RestRoute['method'],
): RestRoute {
  const { http, requestType } = operations[operation];
  const fields: Record<string, unknown> = { ...request };
  const tenant = fields.tenant;
  delete fields.tenant;
  let path = http.path.replace(PATH_VARIABLE, (_, protoName: string) => {
    const name = jsonNameOf(requestType, protoName);
    const value = fields[name];
    if (typeof value !== 'string' || value === '') {
      throw new UsageError(
        `${operation} needs a non-empty "${name}": it goes in the URL path ${http.path}`,
      );
    }
    delete fields[name];
    return encodeURIComponent(value);
  });
  if (typeof tenant === 'string' && tenant !== '') path = `/${encodeURIComponent(tenant)}${path}`;
  const verb = method ?? http.method;
  const query = new URLSearchParams();
  if ('body' in http && verb !== 'GET' && verb !== 'DELETE') {
    return { method: verb, url: joinUrl(baseUrl, path, query), body: JSON.stringify(fields) };
  }
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    const values: unknown[] = Array.isArray(value) ? value : [value];
    for (const item of values) query.append(name, queryValue(operation, name, item));
  }
  return { method: verb, url: joinUrl(baseUrl, path, query) };
}
