/**
 * From per-round measurements to the published numbers: medians across rounds, ratios computed
 * within each round (so that a slow patch of the machine affects both sides of a ratio) and
 * reported as their median, the goals of issue #6 checked, and the Markdown tables.
 */

import { median } from './stats.mjs';
import { TARGETS } from './targets.mjs';

/**
 * The numbers Tandem is to reach (issue #6). `of` compares the scenario's key metric with
 * another target's in the same round; without it the metric's median is compared with `value`.
 */
export const GOALS = [
  {
    scenario: 'a',
    target: 'tandem',
    label: 'a. SendMessage req/s',
    of: 'floor',
    op: '>=',
    value: 0.6,
  },
  { scenario: 'b', target: 'tandem', label: 'b. GetTask req/s', of: 'floor', op: '>=', value: 0.7 },
  {
    scenario: 'c100',
    target: 'tandem',
    label: 'c. `stream 100 64` chunks/s',
    of: 'floor',
    op: '>=',
    value: 0.5,
  },
  {
    scenario: 'c400',
    target: 'tandem',
    label: 'c. server CPU per chunk, `stream 400` ÷ `stream 10`',
    across: { metric: 'cpuUsPerChunk', base: 'c10' },
    op: '<=',
    value: 1,
  },
  {
    scenario: 'd',
    target: 'tandem',
    label: 'd. streams completed',
    metric: 'completedShare',
    op: '>=',
    value: 1,
  },
  {
    scenario: 'd',
    target: 'tandem',
    label: 'd. RSS per open stream (KiB)',
    metric: 'rssPerStreamKiB',
    op: '<=',
    value: 80,
  },
  { scenario: 'd', target: 'tandem', label: 'd. first event p99', of: 'floor', op: '<=', value: 2 },
  {
    scenario: 'e',
    target: 'tandem',
    label: 'e. RSS bytes per stored task',
    metric: 'bytesPerTask',
    op: '<=',
    value: 1500,
  },
  { scenario: 'f', target: 'tandem', label: 'f. cold start', of: 'floor', op: '<=', value: 1.3 },
  {
    scenario: 'a',
    target: 'tandem-sqlite',
    label: 'a. SendMessage req/s (SQLite)',
    of: 'floor',
    op: '>=',
    value: 0.35,
  },
  {
    scenario: 'c100',
    target: 'tandem-sqlite',
    label: 'c. `stream 100 64` chunks/s (SQLite)',
    of: 'floor',
    op: '>=',
    value: 0.3,
  },
  // Issue #31: PostgreSQL beside SQLite and beside its own floor (bare node:http + pg).
  {
    scenario: 'a',
    target: 'tandem-postgres',
    label: 'a. SendMessage req/s (PostgreSQL)',
    of: 'tandem-sqlite',
    op: '>=',
    value: 0.5,
  },
  {
    scenario: 'a',
    target: 'tandem-postgres',
    label: 'a. SendMessage req/s (PostgreSQL)',
    of: 'floor-postgres',
    op: '>=',
    value: 0.6,
  },
  {
    scenario: 'a',
    target: 'tandem-postgres',
    label: 'a. PostgreSQL backends CPU ms per SendMessage',
    metric: 'dbCpuMsPerRequest',
    op: '<=',
    value: 1,
  },
  {
    scenario: 'c100',
    target: 'tandem-postgres',
    label: 'c. `stream 100 64` chunks/s (PostgreSQL)',
    of: 'tandem-sqlite',
    op: '>=',
    value: 0.5,
  },
  // Issue #16: the other two bindings on the same server.
  {
    scenario: 'rest-a',
    target: 'tandem',
    label: 'rest-a. HTTP+JSON SendMessage req/s',
    across: { metric: 'rps', base: 'a' },
    ofLabel: 'its JSON-RPC (a)',
    op: '>=',
    value: 0.9,
  },
  {
    scenario: 'rest-b',
    target: 'tandem',
    label: 'rest-b. HTTP+JSON GetTask req/s',
    across: { metric: 'rps', base: 'b' },
    ofLabel: 'its JSON-RPC (b)',
    op: '>=',
    value: 0.9,
  },
  {
    scenario: 'grpc-a',
    target: 'tandem',
    label: 'grpc-a. gRPC SendMessage req/s',
    of: 'a2a-js',
    op: '>=',
    value: 3,
  },
  {
    scenario: 'grpc-c100',
    target: 'tandem',
    label: 'grpc-c100. gRPC `stream 100 64` chunks/s',
    of: 'a2a-js',
    op: '>=',
    value: 3,
  },
  {
    scenario: 'g',
    target: 'tandem',
    label: 'g. event-to-webhook p99 ms, steady rate',
    metric: 'p99Ms',
    op: '<=',
    value: 20,
  },
  {
    scenario: 'g',
    target: 'tandem-sqlite',
    label: 'g. event-to-webhook p99 ms, steady rate (SQLite)',
    metric: 'p99Ms',
    op: '<=',
    value: 20,
  },
  {
    // Tasks on disk: what RSS gains per task pending is the delivery machinery's, which must
    // not grow with the pending count (bounded by maxWorkers configs at once).
    scenario: 'g-pending',
    target: 'tandem-sqlite',
    label: 'g-pending. RSS bytes per task pending (SQLite)',
    metric: 'bytesPerPending',
    op: '<=',
    value: 500,
  },
];

/** Ratios of `metric` between two targets, one per round where both were measured. */
function roundRatios(rounds, metric, target, reference) {
  return rounds
    .map((r) => r.measurements[target]?.[metric] / r.measurements[reference]?.[metric])
    .filter(Number.isFinite);
}

/**
 * Ratios of `metric` of one target between a scenario and its base scenario (rest-a to a, say),
 * one per round where both were measured: the rounds of the two scenarios are paired by number.
 */
function baseRatios(rounds, baseRounds, metric, target) {
  return rounds
    .map(
      (r, i) => r.measurements[target]?.[metric] / baseRounds?.[i]?.measurements[target]?.[metric],
    )
    .filter(Number.isFinite);
}

/**
 * Medians across rounds of every numeric metric, and the key metric's ratio to the floor and to
 * a2a-js, per target; for a scenario with a `base` (its binding's counterpart, given as
 * `baseRounds`), also the ratio to the same target's rate there.
 */
export function summarize(scenario, rounds, baseRounds) {
  const summary = {};
  const targets = new Set(rounds.flatMap((r) => Object.keys(r.measurements)));
  for (const target of targets) {
    const all = rounds.map((r) => r.measurements[target]).filter((m) => m !== undefined);
    const unavailable = all.find((m) => m.unavailable !== undefined)?.unavailable;
    if (unavailable !== undefined) {
      summary[target] = { metrics: {}, unavailable };
      continue;
    }
    // A measurement that threw holds only its error; it contributes no numbers.
    const measured = all.filter((m) => m.error === undefined);
    const metrics = {};
    for (const name of Object.keys(measured[0] ?? {})) {
      if (typeof measured[0][name] === 'number')
        metrics[name] = median(measured.map((m) => m[name]));
    }
    if (metrics.streams !== undefined) {
      // "All complete" must hold in every round, so the worst round counts, not the median.
      metrics.completedShare = Math.min(...measured.map((m) => m.completed / m.streams));
    }
    const key = scenario.key.metric;
    summary[target] = {
      metrics,
      ratioToFloor: median(roundRatios(rounds, key, target, 'floor')),
      ratioToA2aJs: median(roundRatios(rounds, key, target, 'a2a-js')),
      ...(scenario.base === undefined
        ? {}
        : { ratioToBase: median(baseRatios(rounds, baseRounds, key, target)) }),
      firstError: all.map((m) => m.error ?? m.firstError).find((e) => e !== undefined),
    };
  }
  return summary;
}

/** Checks the goals against summarized results; a goal whose inputs were not measured is null. */
export function evaluateGoals(results) {
  const byId = new Map(results.scenarios.map((s) => [s.id, s]));
  return GOALS.map((goal) => {
    const scenario = byId.get(goal.scenario);
    const unavailable = scenario?.summary[goal.target]?.unavailable;
    if (unavailable !== undefined)
      return { ...goal, measured: Number.NaN, pass: null, unavailable };
    let measured = Number.NaN;
    if (goal.across !== undefined) {
      const base = byId.get(goal.across.base);
      if (scenario !== undefined && base !== undefined) {
        const ratios = scenario.rounds
          .map(
            (r, i) =>
              r.measurements[goal.target]?.[goal.across.metric] /
              base.rounds[i]?.measurements[goal.target]?.[goal.across.metric],
          )
          .filter(Number.isFinite);
        measured = median(ratios);
      }
    } else if (goal.of !== undefined && goal.of !== 'floor' && goal.of !== 'a2a-js') {
      // A ratio to another target of the same round (PostgreSQL to SQLite or to its floor).
      measured =
        scenario === undefined
          ? Number.NaN
          : median(
              roundRatios(scenario.rounds, scenario.key?.metric ?? 'rps', goal.target, goal.of),
            );
    } else if (goal.of !== undefined) {
      const summary = scenario?.summary[goal.target];
      measured =
        (goal.of === 'a2a-js' ? summary?.ratioToA2aJs : summary?.ratioToFloor) ?? Number.NaN;
    } else {
      measured = scenario?.summary[goal.target]?.metrics[goal.metric] ?? Number.NaN;
    }
    const pass = Number.isFinite(measured)
      ? goal.op === '>='
        ? measured >= goal.value
        : measured <= goal.value
      : null;
    return { ...goal, measured, pass };
  });
}

const FORMATS = {
  int: (v) => Math.round(v).toLocaleString('en'),
  dec1: (v) => v.toFixed(1),
  ms: (v) => (v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : Math.round(v).toLocaleString('en')),
  ratio: (v) => v.toFixed(2),
};

function fmt(value, format) {
  return typeof value === 'number' && Number.isFinite(value) ? FORMATS[format](value) : 'n/a';
}

function needed(goal) {
  const op = goal.op === '>=' ? '≥' : '≤';
  if (goal.across !== undefined)
    return `${op} ${goal.value.toFixed(2)}${goal.ofLabel === undefined ? '' : ` × ${goal.ofLabel}`}`;
  return goal.of === undefined
    ? `${op} ${goal.value}`
    : `${op} ${goal.value.toFixed(2)} × ${goal.of}`;
}

function verdict(pass, unavailable) {
  if (unavailable !== undefined) return 'not available';
  return pass === null ? 'not measured' : pass ? 'pass' : '**MISS**';
}

/** Text made safe for one Markdown table cell: one line, no column breaks, at most `max` long. */
function cell(text, max = 300) {
  const line = text.replace(/\s+/g, ' ').trim().replace(/\|/g, '\\|');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function table(header, align, rows) {
  return [
    `| ${header.join(' | ')} |`,
    `| ${align.map((a) => (a === 'r' ? '---:' : '---')).join(' | ')} |`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}

/** The ratio columns of a scenario's table: to the references it has, and to its base. */
function ratioColumns(definition) {
  const keyLabel = definition.key.label;
  const field = { floor: 'ratioToFloor', 'a2a-js': 'ratioToA2aJs' };
  return [
    ...(definition.references ?? ['floor', 'a2a-js']).map((reference) => ({
      label: `${keyLabel} ÷ ${reference}`,
      field: field[reference],
    })),
    ...(definition.base === undefined
      ? []
      : [
          {
            label: `${keyLabel} ÷ ${definition.base.label} (${definition.base.scenario})`,
            field: 'ratioToBase',
          },
        ]),
  ];
}

function scenarioTable(scenario, definition, goals) {
  const ratios = ratioColumns(definition);
  const header = [
    'target',
    ...definition.columns.map((c) => c.label),
    ...ratios.map((r) => r.label),
    'server CPU %',
    'harness CPU %',
    'server peak RSS MiB',
    'failures',
    'goal',
  ];
  const rows = Object.entries(scenario.summary).map(([target, s]) => {
    const m = s.metrics;
    const goalText = goals
      .filter((g) => g.scenario === scenario.id && g.target === target)
      .map(
        (g) =>
          `${g.label.replace(/^[a-z0-9-]+\. /, '')} ${needed(g)}: ${verdict(g.pass, g.unavailable)}`,
      )
      .join('; ');
    const label = TARGETS[target]?.label ?? target;
    if (s.unavailable !== undefined) {
      const blank = Array.from(
        { length: definition.columns.length + ratios.length + 3 },
        () => 'n/a',
      );
      return [label, ...blank, '—', goalText];
    }
    return [
      label,
      ...definition.columns.map((c) => fmt(m[c.metric], c.format)),
      ...ratios.map((r) => fmt(s[r.field], 'ratio')),
      fmt(m.serverCpuPct, 'int'),
      fmt(m.harnessCpuPct, 'int'),
      fmt(m.serverRssPeak / 2 ** 20, 'dec1'),
      m.failures === 0
        ? '0'
        : `${fmt(m.failures, 'int')}${s.firstError ? ` (${cell(s.firstError, 100)})` : ''}`,
      goalText,
    ];
  });
  return table(
    header,
    ['l', ...definition.columns.map(() => 'r'), ...ratios.map(() => 'r'), 'r', 'r', 'r', 'r', 'l'],
    rows,
  );
}

/** A smoke result in one cell: passed, refused and why, not available and why, or not checked. */
function smokeCell(smoke) {
  if (smoke === undefined) return '—';
  if (smoke.unavailable !== undefined) return `not available: ${cell(smoke.unavailable)}`;
  return smoke.ok
    ? `pass (${smoke.checks.length} checks)`
    : `**refused**: ${smoke.checks
        .filter((c) => !c.ok)
        .map((c) => `point ${c.point}: ${cell(c.detail ?? c.name)}`)
        .join('; ')}`;
}

/** The smoke checks over HTTP+JSON and gRPC, when any ran; undefined otherwise. */
function transportSmokeTable(targets) {
  const checked = Object.values(targets).filter(
    (t) => t.transports !== undefined && Object.keys(t.transports).length > 0,
  );
  if (checked.length === 0) return undefined;
  return table(
    ['target', 'HTTP+JSON', 'gRPC'],
    ['l', 'l', 'l'],
    checked.map((t) => [t.label, smokeCell(t.transports.rest), smokeCell(t.transports.grpc)]),
  );
}

/** The whole report as Markdown. */
export function renderMarkdown(results, definitions) {
  const { machine, config } = results;
  const lines = [
    `# Tandem benchmarks — ${results.mode} run, ${results.startedAt}`,
    '',
    `- Machine: ${machine.cpuModel} × ${machine.cpus}, ${machine.memoryGiB} GiB, ${machine.os}; Node ${machine.node}`,
    `- Pinning: ${results.pinning === null ? 'none (no taskset or fewer than 2 cores)' : `server on core ${results.pinning.serverCore}, harness and load generator on core ${results.pinning.harnessCore}`}`,
    `- Load average at start / end: ${machine.loadAverageStart} / ${machine.loadAverageEnd}`,
    `- Rounds: ${config.rounds} (targets alternate A B, then B A); ratios are per round, medians shown`,
    `- Command: \`${results.command}\``,
  ];
  if (results.mode === 'quick') {
    lines.push(
      '',
      '> Quick mode checks that the harness works. Its numbers are indicative only, never a verdict on speed.',
    );
  }
  lines.push('', '## Smoke checks (bench-agent.md points 1–6)', '');
  lines.push(
    table(
      ['target', 'result'],
      ['l', 'l'],
      Object.values(results.targets).map((t) => [t.label, smokeCell(t.smoke)]),
    ),
  );
  const transports = transportSmokeTable(results.targets);
  if (transports !== undefined) {
    lines.push('', '## Smoke checks over HTTP+JSON and gRPC (the same points, per binding)', '');
    lines.push(transports);
  }
  for (const scenario of results.scenarios) {
    const definition = definitions.find((d) => d.id === scenario.id);
    lines.push('', `## ${scenario.title}`, '', scenarioTable(scenario, definition, results.goals));
    const notes = Object.entries(scenario.summary).flatMap(([id, s]) => {
      const target = TARGETS[id];
      return [
        ...(s.unavailable === undefined
          ? []
          : [`_${target?.label ?? id}: not available — ${s.unavailable}._`]),
        ...(target?.note === undefined ? [] : [`_${target.label}: ${target.note}._`]),
      ];
    });
    if (notes.length > 0) lines.push('', ...notes);
  }
  lines.push('', '## Goals', '');
  lines.push(
    table(
      ['goal', 'target', 'measured', 'needed', 'result'],
      ['l', 'l', 'r', 'l', 'l'],
      results.goals.map((g) => [
        g.label,
        TARGETS[g.target].label,
        fmt(g.measured, g.of === undefined && g.across === undefined ? 'dec1' : 'ratio'),
        needed(g),
        verdict(g.pass, g.unavailable),
      ]),
    ),
  );
  return `${lines.join('\n')}\n`;
}
