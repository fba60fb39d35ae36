import { describe, expect, it } from 'vitest';
import { createLogger, formatPrettyLine } from '../../src/http/logging.js';
import type { Logger } from '../../src/runtime/logger.js';
import { call, handlerFor, messageParams, postRaw, readSse, startServer } from './support.js';

function capture(level: 'info' | 'warn' = 'info'): {
  logger: Logger;
  lines: Record<string, unknown>[];
} {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    level,
    destination: { write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { logger, lines };
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
    const { logger, lines } = capture();
    const { url } = await startServer({ logger });
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendStreamingMessage',
      params: messageParams('stream 2'),
    });
    await readSse(await postRaw(`${url}/a2a`, body));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const [line] = lines.filter((entry) => entry.msg === 'request');
    expect(line).toMatchObject({ operation: 'SendStreamingMessage', outcome: 'ok', status: 200 });
    expect(typeof line?.taskId).toBe('string');
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
