#!/usr/bin/env node
/**
 * Extracts every JSON example of the A2A specification (spec/specification.md) so that the fixture
 * corpus (test/fixtures/v1.0) can prove it accounts for each of them: when the spec changes, the
 * drift test fails until the corpus follows.
 *
 * Sources: fenced ```json blocks (and unlabelled blocks that start with `{` or `[`); the bodies
 * of ```http requests and responses; the `data:` lines of Server-Sent Events (in ```http,
 * ```text and unlabelled blocks). A JSON-RPC envelope is unwrapped to its `params`, `result` or
 * `error` member, which is what the proto describes.
 *
 * Examples that are not JSON (placeholder comments, missing or trailing commas) are reported with
 * the parse error and its spec line, never thrown; `lenient` then holds the value read with
 * comments removed and commas repaired, when that reading exists.
 *
 * Usage: node scripts/extract-spec-examples.mjs [spec.md] [--json]
 */

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * @typedef {object} JsonRpcEnvelope
 * @property {'params' | 'result' | 'error' | null} member The unwrapped member; null when the
 *   envelope has none of them (then `json` is the envelope itself).
 * @property {string} [method]
 * @property {unknown} [id]
 */

/**
 * @typedef {object} SpecExample
 * @property {string} id Stable name: section number and ordinal within the section, `6.2#3`.
 * @property {string} section The number of the enclosing numbered heading (`6.2`, `A.2.1`).
 * @property {number} line The 1-based spec line where the JSON text starts.
 * @property {'json' | 'http-request' | 'http-response' | 'sse'} kind Where the example sits.
 * @property {string} text The JSON text as written in the spec.
 * @property {unknown} [json] The parsed (and unwrapped) value; absent when `error` is set.
 * @property {string} [error] Why the text is not JSON, with the spec line.
 * @property {unknown} [lenient] For an unparsable example, the value read leniently, if any.
 * @property {JsonRpcEnvelope} [jsonrpc] Set when the example is a JSON-RPC envelope.
 */

export const DEFAULT_SPEC_PATH = fileURLToPath(
  new URL('../spec/specification.md', import.meta.url),
);

const HEADING = /^#{1,6}\s+(?:Appendix\s+)?((?:\d+|[A-Z])(?:\.\d+)*)\.?\s/;
const FENCE = /^\s*```\s*([\w+-]*)\s*$/;
const HTTP_REQUEST_LINE = /^[A-Z]+\s+\S+/;
const HTTP_STATUS_LINE = /^HTTP\/\d(?:\.\d)?\s+\d{3}/;

/**
 * Lists the JSON examples of a specification in document order.
 *
 * @param {string} markdown
 * @returns {SpecExample[]}
 */
export function extractSpecExamples(markdown) {
  const lines = markdown.split(/\r?\n/);
  /** @type {SpecExample[]} */
  const examples = [];
  /** @type {Map<string, number>} */
  const ordinals = new Map();
  let section = '0';

  /** @param {Omit<SpecExample, 'id' | 'section' | 'json' | 'error' | 'lenient' | 'jsonrpc'>} found */
  const add = (found) => {
    const ordinal = (ordinals.get(section) ?? 0) + 1;
    ordinals.set(section, ordinal);
    examples.push({
      id: `${section}#${ordinal}`,
      section,
      ...found,
      ...readJson(found.text, found.line),
    });
  };

  for (let i = 0; i < lines.length; i++) {
    const heading = HEADING.exec(lines[i]);
    if (heading) section = heading[1];
    const fence = FENCE.exec(lines[i]);
    if (!fence) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end])) end++;
    const body = lines.slice(start, end);
    const firstLine = start + 1; // 1-based line of body[0]
    i = end;
    const language = fence[1].toLowerCase();
    const offset = firstNonBlank(body);
    const startsLikeJson = /^\s*[[{]/.test(body[offset] ?? '');
    if (language.startsWith('json') || (language === '' && startsLikeJson)) {
      if (offset < body.length) {
        add({ line: firstLine + offset, kind: 'json', text: body.slice(offset).join('\n').trim() });
      }
    } else if (language === 'http') {
      for (const found of httpExamples(body, firstLine)) add(found);
    } else if (language === 'text' || language === '') {
      for (const found of sseExamples(body, firstLine)) add(found);
    }
  }
  return examples;
}

/** Reads the examples of the spec file at `path`. */
export function readSpecExamples(path = DEFAULT_SPEC_PATH) {
  return extractSpecExamples(readFileSync(path, 'utf8'));
}

/** @param {string[]} lines */
function firstNonBlank(lines) {
  let i = 0;
  while (i < lines.length && lines[i].trim() === '') i++;
  return i;
}

/**
 * The body of an HTTP message, or its `data:` lines when it is an event stream.
 *
 * @param {string[]} body
 * @param {number} firstLine
 */
function httpExamples(body, firstLine) {
  const first = body[0] ?? '';
  const kind = HTTP_STATUS_LINE.test(first)
    ? 'http-response'
    : HTTP_REQUEST_LINE.test(first)
      ? 'http-request'
      : undefined;
  if (kind === undefined) return [];
  const blank = body.findIndex((line) => line.trim() === '');
  if (blank < 0) return [];
  const headers = body.slice(1, blank);
  const isEventStream = headers.some((h) => /^content-type:\s*text\/event-stream/i.test(h));
  const rest = body.slice(blank + 1);
  if (isEventStream) return sseExamples(rest, firstLine + blank + 1);
  const offset = firstNonBlank(rest);
  const text = rest.slice(offset).join('\n').trim();
  return text === '' ? [] : [{ line: firstLine + blank + 1 + offset, kind, text }];
}

/**
 * One example per Server-Sent Event: consecutive `data:` lines joined by newlines.
 *
 * @param {string[]} body
 * @param {number} firstLine
 */
function sseExamples(body, firstLine) {
  /** @type {{ line: number, kind: 'sse', text: string }[]} */
  const found = [];
  /** @type {{ line: number, data: string[] } | undefined} */
  let event;
  body.forEach((raw, index) => {
    const match = /^data:\s?(.*)$/.exec(raw);
    if (match) {
      event ??= { line: firstLine + index, data: [] };
      event.data.push(match[1]);
    } else if (raw.trim() === '' && event) {
      found.push({ line: event.line, kind: 'sse', text: event.data.join('\n') });
      event = undefined;
    }
  });
  if (event) found.push({ line: event.line, kind: 'sse', text: event.data.join('\n') });
  return found;
}

/**
 * Parses an example, unwrapping a JSON-RPC envelope.
 *
 * @param {string} text
 * @param {number} line
 * @returns {Pick<SpecExample, 'json' | 'error' | 'lenient' | 'jsonrpc'>}
 */
function readJson(text, line) {
  try {
    return unwrap(JSON.parse(text), 'json');
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ');
    const { value, firstRepair } = repair(text);
    const position = /position (\d+)/.exec(message);
    const offset = position ? Number(position[1]) : (firstRepair ?? 0);
    const at = line + countNewlines(text.slice(0, offset));
    return {
      error: `not valid JSON at spec line ${at}: ${message}`,
      ...(value === undefined ? {} : unwrap(value, 'lenient')),
    };
  }
}

/** @param {string} text */
function countNewlines(text) {
  return text.split('\n').length - 1;
}

/**
 * @param {unknown} value
 * @param {'json' | 'lenient'} key
 */
function unwrap(value, key) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { [key]: value };
  const record = /** @type {Record<string, unknown>} */ (value);
  if (record.jsonrpc !== '2.0') return { [key]: value };
  const member = /** @type {const} */ (['params', 'result', 'error']).find((m) => m in record);
  /** @type {JsonRpcEnvelope} */
  const jsonrpc = { member: member ?? null };
  if (typeof record.method === 'string') jsonrpc.method = record.method;
  if ('id' in record) jsonrpc.id = record.id;
  return { [key]: member === undefined ? value : record[member], jsonrpc };
}

/**
 * Reads JSON the way a human reads the spec: `/* ... *\/` comments removed, trailing commas
 * dropped, a missing comma between two members inserted. Returns undefined when even that fails.
 *
 * @param {string} text
 * @returns {unknown}
 */
export function readLeniently(text) {
  return repair(text).value;
}

/**
 * @param {string} text
 * @returns {{ value: unknown, firstRepair: number | undefined }}
 */
function repair(text) {
  let out = '';
  let last = ''; // last significant character written outside strings
  /** @type {number | undefined} */
  let firstRepair;
  const repaired = (/** @type {number} */ at) => (firstRepair ??= at);
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) return { value: undefined, firstRepair: repaired(i) };
      repaired(i);
      i = end + 1;
      continue;
    }
    if (c === ',') {
      const next = text.slice(i + 1).replace(/^(?:\s|\/\*[\s\S]*?\*\/)*/, '')[0];
      if (next === '}' || next === ']') {
        repaired(i);
        continue;
      }
    }
    if (c === '"') {
      if (/["}\]\d]|[el]$/.test(last)) {
        repaired(i);
        out += ',';
      }
      const end = endOfString(text, i);
      out += text.slice(i, end + 1);
      i = end;
      last = '"';
      continue;
    }
    out += c;
    if (!/\s/.test(c)) last = c;
  }
  try {
    return { value: JSON.parse(out), firstRepair };
  } catch {
    return { value: undefined, firstRepair };
  }
}

/**
 * @param {string} text
 * @param {number} start index of the opening quote
 */
function endOfString(text, start) {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return text.length - 1;
}

/** @param {SpecExample} example */
function summarize(example) {
  const value = example.error === undefined ? example.json : example.lenient;
  const keys =
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? `{${Object.keys(value).join(', ')}}`
      : (JSON.stringify(value) ?? '-');
  const rpc = example.jsonrpc
    ? ` jsonrpc ${example.jsonrpc.method ?? ''}.${example.jsonrpc.member ?? '(none)'}`
    : '';
  const status = example.error === undefined ? 'ok' : `UNPARSABLE (${example.error})`;
  return `${example.id.padEnd(9)} line ${String(example.line).padEnd(5)} ${example.kind.padEnd(13)} ${keys}${rpc}\n${' '.repeat(10)}${status}`;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const path = args.find((arg) => !arg.startsWith('--')) ?? DEFAULT_SPEC_PATH;
  const examples = readSpecExamples(path);
  if (args.includes('--json')) {
    process.stdout.write(`${JSON.stringify(examples, null, 2)}\n`);
  } else {
    for (const example of examples) process.stdout.write(`${summarize(example)}\n`);
    const unparsable = examples.filter((example) => example.error !== undefined).length;
    process.stdout.write(`\n${examples.length} examples, ${unparsable} not valid JSON\n`);
  }
}
