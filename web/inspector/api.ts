/**
 * The page's only way out: calls to its own backend, each with the run's token (read from the
 * page the backend served), as JSON, or as NDJSON streams read line by line as they arrive.
 */

import { TOKEN_HEADER, type FailureView } from '../../src/inspector/inspector-api.js';

function meta(name: string): string {
  return document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? '';
}

const token = meta('inspector-token');
const base = meta('inspector-base');

/** A failed call, with the message the `tandem` command would print. */
export class ApiError extends Error {
  readonly failure: FailureView;

  constructor(failure: FailureView) {
    super(failure.message);
    this.failure = failure;
  }
}

/** The failure of anything a call threw. */
export function failureOf(error: unknown): FailureView {
  if (error instanceof ApiError) return error.failure;
  return {
    type: error instanceof Error ? error.name : 'Error',
    message: `The inspector could not be reached (${error instanceof Error ? error.message : String(error)}); is \`tandem inspect\` still running?`,
    exitCode: 3,
  };
}

async function request(route: string, body: unknown, signal?: AbortSignal): Promise<Response> {
  const response = await fetch(`${base}/api/${route}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      [TOKEN_HEADER]: token,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...(signal === undefined ? {} : { signal }),
  });
  if (!response.ok) {
    let failure: FailureView | undefined;
    try {
      failure = ((await response.json()) as { failure?: FailureView }).failure;
    } catch {
      failure = undefined;
    }
    throw new ApiError(
      failure ?? {
        type: 'HttpError',
        message: `The inspector answered ${response.status}`,
        exitCode: 3,
      },
    );
  }
  return response;
}

/** A JSON call: `GET` without a body, `POST` with one. */
export async function call<T>(route: string, body?: unknown): Promise<T> {
  return (await (await request(route, body)).json()) as T;
}

/** An NDJSON stream: each line, parsed, as it arrives. */
export async function* stream<T>(
  route: string,
  body: unknown,
  signal?: AbortSignal,
): AsyncGenerator<T, void, undefined> {
  const response = await request(route, body, signal);
  if (response.body === null) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += value;
      let newline = buffer.indexOf('\n');
      while (newline >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line.trim() !== '') yield JSON.parse(line) as T;
        newline = buffer.indexOf('\n');
      }
    }
  } finally {
    reader.releaseLock();
  }
}
