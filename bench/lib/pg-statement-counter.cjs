/**
 * Preloaded into a PostgreSQL target (`node -r bench/lib/pg-statement-counter.cjs ...`): counts
 * the statements the process sends through `pg`, by name (a prepared statement's name, else the
 * first words of its text), and on SIGUSR2 appends the counts so far, as one JSON line, to the
 * file named by TANDEM_BENCH_PG_COUNTS. The harness signals before and after a measured window
 * and takes the difference: statements per request, and which. It counts, it changes nothing.
 */

'use strict';

const { appendFileSync } = require('node:fs');
const pg = require('pg');

const file = process.env.TANDEM_BENCH_PG_COUNTS;
const counts = Object.create(null);
const query = pg.Client.prototype.query;

pg.Client.prototype.query = function countedQuery(config, ...rest) {
  const text = typeof config === 'string' ? config : (config?.name ?? config?.text ?? '');
  const key = String(text).replace(/\s+/g, ' ').trim().slice(0, 48);
  counts[key] = (counts[key] ?? 0) + 1;
  return query.call(this, config, ...rest);
};

if (file) {
  process.on('SIGUSR2', () => appendFileSync(file, `${JSON.stringify(counts)}\n`));
}
