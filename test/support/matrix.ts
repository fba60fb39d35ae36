/**
 * The axes of the behaviour suite: every block runs once per binding × store. A PostgreSQL block
 * is reported as a skipped test naming the missing variable when `TANDEM_TEST_POSTGRES_URL` is
 * unset.
 */

import { describe } from 'vitest';
import type { BindingName } from './drivers/a2a-driver.js';
import { BINDINGS } from './drivers/bindings.js';
import { STORE_NAMES, skipWithoutPostgres, type StoreName } from './stores.js';

/** One cell of the matrix. */
export interface Axis {
  readonly binding: BindingName;
  readonly store: StoreName;
}

/** Runs `body` once per binding × store (all of each unless narrowed). */
export function describeMatrix(
  title: string,
  body: (axis: Axis) => void,
  options: { bindings?: readonly BindingName[]; stores?: readonly StoreName[] } = {},
): void {
  const { bindings = BINDINGS, stores = STORE_NAMES } = options;
  const cells = bindings.flatMap((binding) => stores.map((store) => [binding, store] as const));
  describe.each(cells)(`${title} [%s binding, %s store]`, (binding, store) => {
    if (skipWithoutPostgres(store)) return;
    body({ binding, store });
  });
}
