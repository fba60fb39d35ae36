/** Building statements whose text depends on the query (reads with optional filters). */

/** Parameters of a statement under construction, numbered in the order they are added. */
export class StatementParams {
  readonly values: unknown[] = [];

  /** Adds a value and returns its typed placeholder, e.g. `$3::text[]`. */
  add(value: unknown, type: string): string {
    this.values.push(value);
    return `$${this.values.length}::${type}`;
  }
}
