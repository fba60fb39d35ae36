/**
 * What the smoke checks of every binding share: the checks' runner, and the expectations on a
 * completed `echo` task and on the event sequence of `stream <n> <bytes>` (bench-agent.md points
 * 4–6), stated once over the payloads (`Task`, `StreamResponse`) that each binding wraps its own
 * way — a JSON-RPC `result`, a bare REST body or SSE event, a protobuf message.
 */

export const TERMINAL = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
]);

/** Thrown by a check with the reason it failed. */
export class CheckFailure extends Error {}

export function expect(condition, reason) {
  if (!condition) throw new CheckFailure(reason);
}

export function parseJson(text, what) {
  try {
    return JSON.parse(text);
  } catch {
    throw new CheckFailure(`${what} is not JSON: ${text.slice(0, 200)}`);
  }
}

/** The text of an artifact's parts, joined; undefined unless every part is a text part. */
export function artifactText(artifact) {
  const parts = artifact?.parts;
  if (!Array.isArray(parts) || parts.some((p) => typeof p?.text !== 'string')) return undefined;
  return parts.map((p) => p.text).join('');
}

/** Checks a completed task holding exactly one artifact whose text is `text`. */
export function expectCompletedTask(task, text, what) {
  expect(typeof task?.id === 'string', `${what}: no task`);
  expect(task.status?.state === 'TASK_STATE_COMPLETED', `${what}: state ${task.status?.state}`);
  expect(
    Array.isArray(task.artifacts) && task.artifacts.length === 1,
    `${what}: expected exactly one artifact`,
  );
  const actual = artifactText(task.artifacts[0]);
  expect(
    actual === text,
    `${what}: artifact text ${JSON.stringify(actual?.slice(0, 80))}, expected ${JSON.stringify(text.slice(0, 80))}`,
  );
}

/** Checks a task after `stream <chunks> <bytes>`: completed, its one artifact holding every chunk. */
export function expectStreamedTask(task, chunks, bytes, what) {
  expect(task?.status?.state === 'TASK_STATE_COMPLETED', `${what}: state ${task?.status?.state}`);
  const text = artifactText(task.artifacts?.[0]);
  expect(
    task.artifacts?.length === 1 && text === 'x'.repeat(chunks * bytes),
    `${what}: the stored artifact does not hold the ${chunks} chunks`,
  );
}

/**
 * Checks the `StreamResponse` payloads of `stream <n> <bytes>` / `slowstream` against the
 * command's contract (point 5); returns the task id.
 */
export function expectEventSequence(events, chunks, bytes, what) {
  const task = events[0]?.task;
  expect(task !== undefined, `${what}: the first event is not a task`);
  expect(
    !TERMINAL.has(task.status?.state),
    `${what}: the first task is already ${task.status?.state}`,
  );
  let i = 1;
  while (
    events[i]?.statusUpdate !== undefined &&
    !TERMINAL.has(events[i].statusUpdate.status?.state)
  )
    i++;
  const artifactId = events[i]?.artifactUpdate?.artifact?.artifactId;
  for (let k = 0; k < chunks; k++, i++) {
    const update = events[i]?.artifactUpdate;
    expect(
      update !== undefined,
      `${what}: event ${i} should be artifact chunk ${k + 1} of ${chunks}`,
    );
    expect(
      update.artifact?.artifactId === artifactId,
      `${what}: chunk ${k + 1} changes artifactId`,
    );
    const parts = update.artifact?.parts;
    expect(
      parts?.length === 1 &&
        typeof parts[0].text === 'string' &&
        /^[\x20-\x7e]*$/.test(parts[0].text),
      `${what}: chunk ${k + 1} is not one ASCII text part`,
    );
    expect(
      parts[0].text.length === bytes,
      `${what}: chunk ${k + 1} has ${parts[0].text.length} characters, expected ${bytes}`,
    );
    expect((update.append === true) === k > 0, `${what}: chunk ${k + 1} append=${update.append}`);
    expect(
      (update.lastChunk === true) === (k === chunks - 1),
      `${what}: chunk ${k + 1} lastChunk=${update.lastChunk}`,
    );
  }
  expect(
    events[i]?.statusUpdate?.status?.state === 'TASK_STATE_COMPLETED',
    `${what}: event ${i} should be the COMPLETED status update`,
  );
  expect(events.length === i + 1, `${what}: ${events.length - i - 1} events after COMPLETED`);
  return task.id;
}

/**
 * Checks the arrival times of `slowstream 3 30 8`'s chunks: timers never fire early; 10% slack
 * covers clock granularity.
 */
export function expectSlowChunkTimes(chunkArrivalsMs) {
  expect(
    chunkArrivalsMs[0] >= 27,
    `the first chunk came after ${chunkArrivalsMs[0]?.toFixed(1)} ms, before its 30 ms delay`,
  );
  expect(
    chunkArrivalsMs[2] >= 81,
    `the last chunk came after ${chunkArrivalsMs[2]?.toFixed(1)} ms; 3 × 30 ms expected`,
  );
}

/**
 * A list of checks and the function that runs one: a check passes unless it throws; its return
 * value, when any, is kept as its detail.
 */
export function checkRunner() {
  /** @type {{point: string, name: string, ok: boolean, detail?: string}[]} */
  const checks = [];
  const run = async (point, name, fn) => {
    try {
      const detail = await fn();
      checks.push({ point, name, ok: true, ...(detail === undefined ? {} : { detail }) });
      return true;
    } catch (error) {
      const detail = error instanceof CheckFailure ? error.message : `${error?.message ?? error}`;
      checks.push({ point, name, ok: false, detail });
      return false;
    }
  };
  return { checks, run };
}
