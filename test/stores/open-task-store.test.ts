/**
 * The store descriptions `--store` and `TANDEM_STORE` take: the PostgreSQL URL's own parameters
 * (`schema`, `pool`, `listen_url`, `prepared`) are taken out of the connection string, checked,
 * and shown in logs without passwords.
 */

import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/protocol/local-errors.js';
import { describeTaskStoreSpec, parseTaskStoreSpec } from '../../src/stores/open-task-store.js';

describe('PostgreSQL store descriptions', () => {
  it('takes the store parameters out of the URL, leaving libpq its own', () => {
    const spec = parseTaskStoreSpec(
      'postgres://app:secret@pooler:6432/db?sslmode=require&schema=tandem&pool=24' +
        '&listen_url=postgres%3A%2F%2Fapp%3Asecret%40db%3A5432%2Fdb&prepared=false',
    );
    expect(spec).toEqual({
      kind: 'postgres',
      connectionString: 'postgres://app:secret@pooler:6432/db?sslmode=require',
      schema: 'tandem',
      poolSize: 24,
      listenConnectionString: 'postgres://app:secret@db:5432/db',
      preparedStatements: false,
    });
    const described = describeTaskStoreSpec(spec);
    expect(described).not.toContain('secret');
    expect(new URL(described).searchParams.get('pool')).toBe('24');
    expect(new URL(described).searchParams.get('listen_url')).toBe('postgres://app:***@db:5432/db');
  });

  it('leaves a URL without store parameters as it is', () => {
    expect(parseTaskStoreSpec('postgresql://db/tandem')).toEqual({
      kind: 'postgres',
      connectionString: 'postgresql://db/tandem',
    });
  });

  it.each([
    ['pool=0', '--store ?pool= must be a positive whole number of connections; got "0"'],
    ['pool=ten', '--store ?pool= must be a positive whole number of connections; got "ten"'],
    ['pool=2.5', '--store ?pool= must be a positive whole number of connections; got "2.5"'],
    ['prepared=yes', '--store ?prepared= must be true or false; got "yes"'],
    ['listen_url=http%3A%2F%2Fdb', '--store ?listen_url= must be a postgres:// URL'],
  ])('refuses %s, saying why', (query, message) => {
    const parse = (): unknown => parseTaskStoreSpec(`postgres://db/tandem?${query}`);
    expect(parse).toThrow(ConfigurationError);
    expect(parse).toThrow(message);
  });
});
