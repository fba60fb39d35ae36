/**
 * A JSON value as a collapsible tree: objects and arrays fold (the first levels open), and the
 * nodes at the paths given (a card's validation problems) are marked.
 */

import type { JSX } from 'preact';

interface JsonTreeProps {
  readonly value: unknown;
  /** Field paths to mark, as validation reports them (`skills[0].name`). */
  readonly marked?: ReadonlySet<string>;
  /** Levels open at first. */
  readonly open?: number;
  readonly label?: string;
}

function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

function Node(props: {
  value: unknown;
  path: string;
  name: string | undefined;
  depth: number;
  open: number;
  marked: ReadonlySet<string>;
}): JSX.Element {
  const { value, path, name, depth, open, marked } = props;
  const isMarked = marked.has(path);
  const label = name === undefined ? null : <span class="json-key">{name}: </span>;
  if (value !== null && typeof value === 'object') {
    const entries: Array<[string | number, unknown]> = Array.isArray(value)
      ? value.map((item, index) => [index, item])
      : Object.entries(value);
    const summary = Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`;
    return (
      <details open={depth < open} class={isMarked ? 'json-node marked' : 'json-node'}>
        <summary>
          {label}
          <span class="json-summary">{summary}</span>
        </summary>
        <div class="json-children">
          {entries.map(([key, child]) => (
            <Node
              key={String(key)}
              value={child}
              path={childPath(path, key)}
              name={String(key)}
              depth={depth + 1}
              open={open}
              marked={marked}
            />
          ))}
        </div>
      </details>
    );
  }
  const kind = value === null ? 'null' : typeof value;
  return (
    <div class={isMarked ? 'json-leaf marked' : 'json-leaf'}>
      {label}
      <span class={`json-${kind}`}>{JSON.stringify(value)}</span>
    </div>
  );
}

/** The tree of `value`. */
export function JsonTree(props: JsonTreeProps): JSX.Element {
  return (
    <div class="json-tree" aria-label={props.label ?? 'JSON'}>
      <Node
        value={props.value}
        path=""
        name={undefined}
        depth={0}
        open={props.open ?? 2}
        marked={props.marked ?? new Set()}
      />
    </div>
  );
}
