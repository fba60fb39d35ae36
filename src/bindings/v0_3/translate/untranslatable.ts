/**
 * What the 0.3 translation cannot carry across. A value that breaks a documented rule (a 0.3
 * `unknown` task state, several push authentication schemes where 1.0 holds one, a field of the
 * wrong type) is never dropped quietly: every problem is collected with its field path, and the
 * translation fails with {@link UntranslatableError}. The server answers it `InvalidParamsError`
 * (the client sent it), the client `ProtocolViolationError` (the agent sent it).
 */

import type { FieldViolation } from '../../../protocol/error-details.js';
import { LocalError } from '../../../protocol/local-errors.js';

/** A value that has no translation between A2A 0.3 and 1.0; `violations` name every field. */
export class UntranslatableError extends LocalError {
  constructor(
    message: string,
    readonly violations: readonly FieldViolation[],
  ) {
    super(message);
  }
}

/** The problems met while translating one value. */
export class Issues {
  readonly #violations: FieldViolation[] = [];

  add(field: string, description: string): void {
    this.#violations.push({ field, description });
  }

  get empty(): boolean {
    return this.#violations.length === 0;
  }

  /** @throws UntranslatableError listing every problem, when there is any. */
  check(what: string): void {
    if (this.#violations.length === 0) return;
    const shown = this.#violations
      .slice(0, 3)
      .map((v) => `${v.field}: ${v.description}`)
      .join('; ');
    const more = this.#violations.length > 3 ? ` (and ${this.#violations.length - 3} more)` : '';
    throw new UntranslatableError(`${what} cannot be translated: ${shown}${more}`, [
      ...this.#violations,
    ]);
  }
}

/** Runs a translation and throws what it met. */
export function translate<T>(what: string, run: (issues: Issues) => T): T {
  const issues = new Issues();
  const value = run(issues);
  issues.check(what);
  return value;
}

/** Whether a value is a JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
