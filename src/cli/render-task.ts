/**
 * Human output of the task model: parts, messages, artifacts, a task in full (`get`) and the
 * answer of a task (`send`). Text is shown as text, data as indented JSON, files as one line
 * naming them; everything else about the task (ids, states, times) is secondary and dimmed.
 */

import type { Artifact, Message, Part, Task, TaskState } from '../index.js';
import { decodeBase64 } from '../codecs.js';
import type { Style, Terminal } from './terminal.js';

/** `TASK_STATE_INPUT_REQUIRED` → `input-required`. */
export function stateLabel(state: TaskState): string {
  return state
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replace(/_/g, '-');
}

/** The state, coloured by what it means for the user. */
export function styledState(state: TaskState, style: Style): string {
  const label = stateLabel(state);
  switch (state) {
    case 'TASK_STATE_COMPLETED':
      return style.green(label);
    case 'TASK_STATE_FAILED':
    case 'TASK_STATE_REJECTED':
    case 'TASK_STATE_CANCELED':
      return style.red(label);
    case 'TASK_STATE_INPUT_REQUIRED':
    case 'TASK_STATE_AUTH_REQUIRED':
      return style.yellow(label);
    case 'TASK_STATE_SUBMITTED':
    case 'TASK_STATE_WORKING':
    case 'TASK_STATE_UNSPECIFIED':
      return style.cyan(label);
  }
}

/** The size of a base64 payload in bytes, without decoding it when it is malformed. */
function byteLength(raw: string): number {
  try {
    return decodeBase64(raw).length;
  } catch {
    return Math.floor((raw.replace(/=+$/, '').length * 3) / 4);
  }
}

/** One line for a file part: `file: name (mediaType) url|N bytes`. */
export function describeFile(part: Part): string {
  const name = part.filename ?? 'unnamed';
  const type = part.mediaType === undefined ? '' : ` (${part.mediaType})`;
  const where = part.url ?? `${byteLength(part.raw ?? '')} bytes`;
  return `file: ${name}${type} ${where}`;
}

/** The widest data part printed on one line; a larger one is indented to stay readable. */
const ONE_LINE_DATA = 100;

/** A data part as JSON: one line (`{"sum":7}`) when short, indented when it would be long. */
export function describeData(data: unknown): string {
  const compact = JSON.stringify(data);
  return compact.length <= ONE_LINE_DATA ? compact : JSON.stringify(data, null, 2);
}

/**
 * Writes parts: text as is (closing its line), data as JSON, files as one line. `indent` prefixes
 * every line (for `get`).
 */
export function writeParts(terminal: Terminal, parts: readonly Part[], indent = ''): void {
  for (const part of parts) {
    let text: string;
    if (part.text !== undefined) text = part.text;
    else if (part.data !== undefined) text = describeData(part.data);
    else text = terminal.style.dim(describeFile(part));
    const lines = text.replace(/\n$/, '').split('\n');
    for (const line of lines) terminal.line(`${indent}${line}`);
  }
}

/**
 * An artifact's parts with each run of consecutive text parts made one: an artifact streamed in
 * chunks (a model's answer, a token per chunk) is one text, printed as the live stream prints it
 * (each chunk written in place), not a line per chunk.
 */
function artifactParts(parts: readonly Part[]): Part[] {
  const joined: Part[] = [];
  for (const part of parts) {
    const previous = joined.at(-1);
    if (part.text !== undefined && previous?.text !== undefined) {
      joined[joined.length - 1] = { ...previous, text: previous.text + part.text };
    } else {
      joined.push(part);
    }
  }
  return joined;
}

/** The text of a message's text parts, joined, for one-line status output. */
export function messageText(message: Message | undefined): string {
  if (message === undefined) return '';
  return message.parts
    .flatMap((part) => (part.text === undefined ? [] : [part.text]))
    .join('\n')
    .trim();
}

function writeArtifact(terminal: Terminal, artifact: Artifact, indent: string): void {
  const { style } = terminal;
  const title = artifact.name ?? artifact.artifactId;
  const extra = artifact.name === undefined ? '' : style.dim(` (artifact ${artifact.artifactId})`);
  terminal.line(`${indent}${style.bold(title)}${extra}`);
  if (artifact.description !== undefined) {
    terminal.line(`${indent}  ${style.dim(artifact.description)}`);
  }
  writeParts(terminal, artifactParts(artifact.parts), `${indent}  `);
}

/**
 * The answer of a task as `send` prints it: the artifacts' content, then the status message (the
 * result, the question of an interrupted task, or the reason of a failure).
 */
export function writeTaskAnswer(terminal: Terminal, task: Task): void {
  for (const artifact of task.artifacts ?? []) writeParts(terminal, artifactParts(artifact.parts));
  const status = task.status.message;
  if (status !== undefined) writeParts(terminal, status.parts);
}

/** A task in full, as `get` and `cancel` print it. */
export function writeTaskDetails(terminal: Terminal, task: Task): void {
  const { style } = terminal;
  const label = (name: string): string => style.dim(name.padEnd(9));
  terminal.line(`${label('task')}${style.bold(task.id)}`);
  if (task.contextId !== undefined) terminal.line(`${label('context')}${task.contextId}`);
  const time = task.status.timestamp === undefined ? '' : style.dim(`  ${task.status.timestamp}`);
  terminal.line(`${label('state')}${styledState(task.status.state, style)}${time}`);
  const status = task.status.message;
  if (status !== undefined) {
    terminal.line(style.dim('message'));
    writeParts(terminal, status.parts, '  ');
  }
  const history = task.history ?? [];
  if (history.length > 0) {
    terminal.line();
    terminal.line(style.bold(`History (${history.length})`));
    for (const message of history) {
      const role =
        message.role === 'ROLE_USER' ? 'user' : message.role === 'ROLE_AGENT' ? 'agent' : '?';
      terminal.line(`  ${style.cyan(role)}`);
      writeParts(terminal, message.parts, '    ');
    }
  }
  const artifacts = task.artifacts ?? [];
  if (artifacts.length > 0) {
    terminal.line();
    terminal.line(style.bold(`Artifacts (${artifacts.length})`));
    for (const artifact of artifacts) writeArtifact(terminal, artifact, '  ');
  }
}

/** Tasks as a table: id, state, status time, context. */
export function writeTaskTable(terminal: Terminal, tasks: readonly Task[]): void {
  const { style } = terminal;
  const rows = tasks.map((task) => [
    task.id,
    stateLabel(task.status.state),
    task.status.timestamp ?? '-',
    task.contextId ?? '-',
  ]);
  const header = ['ID', 'STATE', 'UPDATED', 'CONTEXT'];
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const pad = (cell: string, i: number): string =>
    i === header.length - 1 ? cell : cell.padEnd(widths[i] ?? 0);
  terminal.line(style.bold(header.map(pad).join('  ')));
  for (const [index, task] of tasks.entries()) {
    const cells = (rows[index] ?? []).map(pad);
    // Colour after padding: escape codes must not count towards the width.
    cells[1] = (cells[1] ?? '').replace(
      stateLabel(task.status.state),
      styledState(task.status.state, style),
    );
    terminal.line(cells.join('  '));
  }
}
