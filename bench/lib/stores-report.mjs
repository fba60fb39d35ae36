/**
 * The Markdown report of `bench/stores.mjs`: one table per question of issue #4, one row per
 * store (and variant), failures shown in place of their numbers.
 */

import { cpus, loadavg, release, totalmem, type } from 'node:os';
import { STORE_LABELS } from './stores-options.mjs';

export function loadAverage() {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

export function describeMachine() {
  const cpu = cpus();
  return {
    cpuModel: cpu[0]?.model.trim() ?? 'unknown CPU',
    cpus: cpu.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os: `${type()} ${release()}`,
    node: process.version,
    loadAverageStart: loadAverage(),
    loadAverageEnd: '',
  };
}

const int = (v) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en') : 'n/a');
const ms = (v) =>
  !Number.isFinite(v)
    ? 'n/a'
    : v < 0.01
      ? v.toPrecision(2)
      : v < 1
        ? v.toFixed(3)
        : v < 10
          ? v.toFixed(2)
          : v < 100
            ? v.toFixed(1)
            : int(v);

/** Text made safe for one Markdown table cell. */
function cell(text, max = 200) {
  const line = String(text).replace(/\s+/g, ' ').replace(/\|/g, '\\|');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function table(header, align, rows) {
  return [
    `| ${header.join(' | ')} |`,
    `| ${align.map((a) => (a === 'r' ? '---:' : '---')).join(' | ')} |`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}

/** The row of `store` for `metric`, or undefined. */
function find(results, store, metric) {
  return results.rows.find((r) => r.store === store && r.metric === metric);
}

/** The cells of a row, or its error spread over `width` cells. */
function cells(row, width, render) {
  if (row === undefined) return Array(width).fill('n/a');
  if (row.error !== undefined) return [`failed: ${cell(row.error)}`, ...Array(width - 1).fill('')];
  return render(row);
}

function detailOf(row) {
  const parts = Object.entries(row.detail ?? {})
    .filter(([, v]) => Number.isFinite(v) && Math.round(v) !== 0)
    .sort(([, a], [, b]) => b - a)
    .map(([name, v]) => `${name === 'rss' ? 'RSS' : name} ${int(v)}`);
  return parts.join(', ');
}

function bytesTable(results, stores) {
  return table(
    ['store', 'bytes per task', 'measured as', 'where they are (per task)'],
    ['l', 'r', 'l', 'l'],
    stores.map((store) => [
      STORE_LABELS[store],
      ...cells(find(results, store, 'bytes-per-task'), 3, (r) => [
        int(r.bytesPerTask),
        r.measuredAs,
        detailOf(r),
      ]),
    ]),
  );
}

function appendTable(results, stores) {
  const rows = [];
  for (const store of stores) {
    for (const metric of ['append-sequential', 'append-concurrent']) {
      const row = find(results, store, metric);
      rows.push([
        STORE_LABELS[store],
        metric === 'append-sequential' ? '1' : String(results.config.concurrentTasks),
        ...cells(row, 4, (r) => [int(r.appends), int(r.eventsPerSec), ms(r.p50Ms), ms(r.p99Ms)]),
      ]);
    }
  }
  return table(
    ['store', 'tasks at once', 'appends', 'events/s', 'p50 ms', 'p99 ms'],
    ['l', 'r', 'r', 'r', 'r', 'r'],
    rows,
  );
}

const LIST_VARIANTS = [
  ['list-first', 'first (counts the total)', 'none'],
  ['list-first-context', 'first (counts the total)', 'contextId'],
  ['list-deep', 'deep, from a cursor', 'none'],
  ['list-deep-context', 'deep, from a cursor', 'contextId'],
];

function listTable(results, stores) {
  const rows = [];
  for (const store of stores) {
    for (const [metric, page, filter] of LIST_VARIANTS) {
      rows.push([
        STORE_LABELS[store],
        page,
        filter,
        ...cells(find(results, store, metric), 5, (r) => [
          int(r.page),
          int(r.matching),
          int(r.samples),
          ms(r.p50Ms),
          ms(r.p99Ms),
        ]),
      ]);
    }
  }
  return table(
    ['store', 'page', 'filter', 'page no.', 'matching tasks', 'samples', 'p50 ms', 'p99 ms'],
    ['l', 'l', 'l', 'r', 'r', 'r', 'r', 'r'],
    rows,
  );
}

function replicaTable(results) {
  const variants = [
    ['cross-replica', 'B in the same process (own pool and listener connection)'],
    ['cross-process', 'B in another process'],
  ];
  return table(
    ['replica B', 'samples', 'p50 ms', 'p99 ms', 'resyncs'],
    ['l', 'r', 'r', 'r', 'r'],
    variants.map(([metric, label]) => [
      label,
      ...cells(find(results, 'postgres', metric), 4, (r) => [
        int(r.samples),
        ms(r.p50Ms),
        ms(r.p99Ms),
        int(r.resyncs),
      ]),
    ]),
  );
}

/** The whole report as Markdown. */
export function renderStoresMarkdown(results) {
  const { machine, config } = results;
  const measured = Object.entries(results.stores)
    .filter(([, s]) => s.status !== 'skipped')
    .map(([id]) => id);
  const tasks = config.tasks.toLocaleString('en');
  const lines = [
    `# Tandem store benchmarks — ${results.mode} run, ${results.startedAt}`,
    '',
    `- Machine: ${machine.cpuModel} × ${machine.cpus}, ${machine.memoryGiB} GiB, ${machine.os}; Node ${machine.node}`,
    `- Load average at start / end: ${machine.loadAverageStart} / ${machine.loadAverageEnd}`,
    `- Command: \`${results.command}\``,
  ];
  for (const [id, s] of Object.entries(results.stores)) {
    if (s.status === 'skipped') lines.push(`- ${STORE_LABELS[id]}: skipped (${s.reason})`);
    else if (s.status === 'failed') lines.push(`- ${STORE_LABELS[id]}: **failed** (${s.reason})`);
    else if (s.server !== undefined) lines.push(`- ${STORE_LABELS[id]}: ${s.server}`);
  }
  if (results.mode === 'quick') {
    lines.push(
      '',
      '> Quick mode checks that the harness works. Its numbers are indicative only, never a verdict on speed.',
    );
  }
  if (measured.length === 0) {
    lines.push('', '_No store was measured._');
    return `${lines.join('\n')}\n`;
  }
  lines.push(
    '',
    `## Bytes per stored task (${tasks} echo tasks)`,
    '',
    bytesTable(results, measured),
    '',
    `## Appends: artifact chunks of ${config.chunkBytes} bytes, each task's appends in sequence`,
    '',
    appendTable(results, measured),
    '',
    `## ListTasks at ${tasks} tasks (pageSize ${config.pageSize})`,
    '',
    listTable(results, measured),
  );
  if (measured.includes('postgres')) {
    lines.push(
      '',
      '## Cross-replica event latency (PostgreSQL): A appends → B has the event',
      '',
      replicaTable(results),
    );
  }
  return `${lines.join('\n')}\n`;
}
