import { describe, expect, it } from 'vitest';
import { createLogger, formatPrettyLine } from '../../src/http/logging.js';
import type { Logger } from '../../src/server.js';
import { readSse } from '../support/read-sse.js';
import { call, handlerFor, messageParams, postRaw, startServer } from './support.js';

type Line = Record<string, unknown>;

function capture(level: 'info' | 'warn' = 'info'): {
  logger: Logger;
  lines: Line[];
  /** Resolves with the first line (written so far or later) that `matches` accepts. */
  line: (matches: (line: Line) => boolean) => Promise<Line>;
} {
  const lines: Line[] = [];
  const waiters = new Set<{ matches: (line: Line) => boolean; resolve: (line: Line) => void }>();
  const logger = createLogger({
    level,
    destination: {
      write: (text) => {
        const line = JSON.parse(text) as Line;
        lines.push(line);
        for (const waiter of [...waiters]) {
          if (!waiter.matches(line)) continue;
          waiters.delete(waiter);
          waiter.resolve(line);
        }
      },
    },
  });
  const line = (matches: (line: Line) => boolean): Promise<Line> => {
    const found = lines.find(matches);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve) => waiters.add({ matches, resolve }));
  };
  return { logger, lines, line };
}

describe('request log', () => {
  it('logs one info line per request with method, path, task id, status and outcome', async () => {
    const { logger, lines } = capture();
    const { url } = await startServer({ logger, agents: [{ path: '', handler: handlerFor() }] });
    const sent = await call(`${url}/a2a`, 'SendMessage', messageParams('echo a secret message'));
    await call(`${url}/a2a`, 'GetTask', { id: 'missing' });
    const requests = lines.filter((line) => line.msg === 'request');
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({
      level: 30,
      method: 'POST',
      path: '/a2a',
      operation: 'SendMessage',
      taskId: sent.result?.task?.id,
      status: 200,
      outcome: 'ok',
    });
    expect(typeof requests[0]?.durationMs).toBe('number');
    expect(requests[1]).toMatchObject({
      operation: 'GetTask',
      taskId: 'missing',
      outcome: 'error',
      errorCode: -32001,
    });
    expect(JSON.stringify(lines)).not.toContain('secret');
  });

  it('logs a stream when it ends, with its task id', async () => {
    const { logger, lines, line } = capture();
    const { url } = await startServer({ logger });
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendStreamingMessage',
      params: messageParams('stream 2'),
    });
    const events = await readSse(await postRaw(`${url}/a2a`, body));
    // The line is written once the server has finished the response, which the client may
    // see end first.
    const logged = await line((entry) => entry.msg === 'request');
    expect(logged).toMatchObject({ operation: 'SendStreamingMessage', outcome: 'ok', status: 200 });
    const firstEvent = JSON.parse(events[0]?.data ?? '{}') as {
      result?: { task?: { id: string } };
    };
    expect(logged.taskId).toBe(firstEvent.result?.task?.id);
    expect(lines.filter((entry) => entry.msg === 'request')).toHaveLength(1);
  });

  it('logs nothing per request above info', async () => {
    const { logger, lines } = capture('warn');
    const { url } = await startServer({ logger });
    await call(`${url}/a2a`, 'GetTask', { id: 'x' });
    expect(lines).toHaveLength(0);
  });

  it('formats pretty lines with the error stack', () => {
    const line = formatPrettyLine(
      JSON.stringify({
        level: 50,
        time: 0,
        msg: 'boom',
        path: '/a2a',
        err: { message: 'x', stack: 'Error: x\n    at y' },
      }),
    );
    expect(line).toBe('00:00:00.000 ERROR boom path=/a2a\n  Error: x\n      at y\n');
  });
});
