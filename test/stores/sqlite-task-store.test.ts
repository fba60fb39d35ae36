import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { SqliteTaskStore } from '../../src/stores/sqlite/sqlite-task-store.js';
import { describeTaskStoreContract } from './task-store-contract.js';

const directory = mkdtempSync(join(tmpdir(), 'tandem-sqlite-contract-'));
let files = 0;

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

describeTaskStoreContract('sqlite', () => {
  const store = SqliteTaskStore.open({ path: join(directory, `tasks-${++files}.db`) });
  return Promise.resolve({ store, close: () => store.close() });
});
