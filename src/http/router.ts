/**
 * A router over path templates, for the routes the mounted bindings declare. A template is a path
 * of segments, each a literal (`tasks`, `message:send`), a variable (`{id}`, also written
 * `{id=*}` as in the proto's `google.api.http` annotations), or a variable followed by a literal
 * suffix (`{id}:cancel`). A variable matches one whole path segment (never a `/`), percent-decoded.
 *
 * Matching: a path whose template is all literals is found with one map lookup (the JSON-RPC
 * endpoint, the card, every fixed REST route); otherwise the templates are searched segment by
 * segment, literals before variables, so that `/tasks/{id}` wins over `/{tenant}/tasks` for
 * `/tasks/tasks`. When templates of several routes match a path, the first whose methods include
 * the request's answers; if none does, the request gets 405 with every method any of them allows.
 */

import { ConfigurationError } from '../protocol/local-errors.js';

/** What a template resolves to, for one method. */
export interface RouteMatch<T> {
  readonly target: T;
  readonly params: Readonly<Record<string, string>>;
}

/** The outcome of a lookup. */
export type RouteLookup<T> =
  | ({ readonly kind: 'found' } & RouteMatch<T>)
  | { readonly kind: 'method-not-allowed'; readonly allow: readonly string[]; readonly target: T }
  | { readonly kind: 'not-found' };

interface Variable {
  readonly name: string;
  /** The literal the segment must end with after the variable (`:cancel`), `''` for none. */
  readonly suffix: string;
}

interface Node<T> {
  readonly literals: Map<string, Node<T>>;
  /** Variable edges, those with the longest suffix first. */
  readonly variables: { readonly variable: Variable; readonly node: Node<T> }[];
  /** Targets of templates ending here, by method, in insertion order. */
  readonly methods: Map<string, T>;
}

const VARIABLE = /^\{([A-Za-z_][A-Za-z0-9_]*)(?:=\*)?\}(.*)$/;

function newNode<T>(): Node<T> {
  return { literals: new Map(), variables: [], methods: new Map() };
}

function segmentsOf(path: string): string[] {
  return (path === '' ? '/' : path).slice(1).split('/');
}

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

/** Templates → targets (route handlers), per HTTP method. */
export class Router<T> {
  readonly #root = newNode<T>();
  /** Nodes of all-literal templates, by their path. */
  readonly #static = new Map<string, Node<T>>();

  /**
   * Adds a route.
   *
   * @throws ConfigurationError when the template is malformed or the same method is already
   *   routed for the same template.
   */
  add(method: string, template: string, target: T): void {
    if (template !== '' && !template.startsWith('/')) {
      throw new ConfigurationError(`Route ${method} ${template} must start with "/"`);
    }
    let node = this.#root;
    let literal = true;
    for (const segment of segmentsOf(template)) {
      const match = VARIABLE.exec(segment);
      if (match === null) {
        if (segment.includes('{') || segment.includes('}')) {
          throw new ConfigurationError(
            `Route ${method} ${template}: segment ${JSON.stringify(segment)} is neither a literal nor {variable}`,
          );
        }
        let next = node.literals.get(segment);
        if (next === undefined) {
          next = newNode();
          node.literals.set(segment, next);
        }
        node = next;
        continue;
      }
      literal = false;
      const variable = { name: match[1] as string, suffix: match[2] as string };
      let edge = node.variables.find(
        (e) => e.variable.name === variable.name && e.variable.suffix === variable.suffix,
      );
      if (edge === undefined) {
        edge = { variable, node: newNode() };
        node.variables.push(edge);
        node.variables.sort((a, b) => b.variable.suffix.length - a.variable.suffix.length);
      }
      node = edge.node;
    }
    if (node.methods.has(method)) {
      throw new ConfigurationError(
        `Two routes claim ${template || '/'} (${method}); give each agent a distinct path (agents[].path) or binding path`,
      );
    }
    node.methods.set(method, target);
    if (literal) this.#static.set(template === '' ? '/' : template, node);
  }

  /** Finds the target of `method` on `path` (as received: percent-encoded, no query). */
  lookup(method: string, path: string): RouteLookup<T> {
    const exact = this.#static.get(path);
    if (exact !== undefined) {
      const target = exact.methods.get(method);
      if (target !== undefined) return { kind: 'found', target, params: NO_PARAMS };
    }
    const matches: { node: Node<T>; params: Record<string, string> }[] = [];
    const segments = decodedSegments(path);
    if (segments !== undefined) this.#collect(this.#root, segments, 0, {}, matches);
    for (const { node, params } of matches) {
      const target = node.methods.get(method);
      if (target !== undefined) return { kind: 'found', target, params };
    }
    const first = matches[0];
    if (first === undefined) return { kind: 'not-found' };
    const allow = new Set<string>();
    for (const { node } of matches) for (const m of node.methods.keys()) allow.add(m);
    return {
      kind: 'method-not-allowed',
      allow: [...allow],
      target: first.node.methods.values().next().value as T,
    };
  }

  /** Every method any route on `path` answers (for `OPTIONS`); empty when no route matches. */
  methodsOf(path: string): string[] {
    const matches: { node: Node<T>; params: Record<string, string> }[] = [];
    const segments = decodedSegments(path);
    if (segments !== undefined) this.#collect(this.#root, segments, 0, {}, matches);
    const allow = new Set<string>();
    for (const { node } of matches) for (const m of node.methods.keys()) allow.add(m);
    return [...allow];
  }

  #collect(
    node: Node<T>,
    segments: readonly string[],
    index: number,
    params: Record<string, string>,
    out: { node: Node<T>; params: Record<string, string> }[],
  ): void {
    if (index === segments.length) {
      if (node.methods.size > 0) out.push({ node, params });
      return;
    }
    const segment = segments[index] as string;
    const literal = node.literals.get(segment);
    if (literal !== undefined) this.#collect(literal, segments, index + 1, params, out);
    for (const { variable, node: next } of node.variables) {
      const { suffix } = variable;
      if (!segment.endsWith(suffix)) continue;
      const value = segment.slice(0, segment.length - suffix.length);
      if (value === '') continue;
      this.#collect(next, segments, index + 1, { ...params, [variable.name]: value }, out);
    }
  }
}

/** The path's segments, percent-decoded; `undefined` when one is not valid percent-encoding. */
function decodedSegments(path: string): string[] | undefined {
  const segments = segmentsOf(path);
  if (!path.includes('%')) return segments;
  try {
    return segments.map((segment) => decodeURIComponent(segment));
  } catch {
    return undefined;
  }
}
