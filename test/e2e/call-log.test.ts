/**
 * The call log on every binding: one `info` line (`request`) per call, with the same fields over
 * JSON-RPC, HTTP+JSON and gRPC — binding, operation, task id, status, outcome with the binding's
 * error code and the A2A reason, the principal and the duration — and never a credential or
 * message content; a stream's line is written when it ends.
 */

import { expect, it } from 'vitest';
import { TaskNotFoundError } from '../../src/index.js';
import { bearerAuthentication, CredentialList } from '../../src/server.js';
import { rejection } from '../support/a2a-errors.js';
import { testAgent } from '../support/agents.js';
import { useBehaviourEnv } from '../support/behaviour-env.js';
import { createDriver, PROTOCOL_BINDINGS } from '../support/drivers/bindings.js';
import { describeMatrix } from '../support/matrix.js';
import { send } from '../support/messages.js';
import { recordingLogger, type LogEntry } from '../support/recording-logger.js';

/** The fields of a call's log line. */
type CallLine = Readonly<Record<string, unknown>>;
const fieldsOf = (entry: LogEntry): CallLine => entry.context as CallLine;

const TOKEN = 'call-log-token-0123456789abcdef';
const SECRET_TEXT = 'echo the-message-text-is-not-logged';

describeMatrix(
  'call log',
  ({ binding, store }) => {
    const env = useBehaviourEnv({ binding, store });

    it('logs every call with the same fields, its principal, and no secret', async () => {
      const logger = recordingLogger();
      const server = await env.serve(testAgent, {
        logger,
        http: {
          authenticate: bearerAuthentication(
            new CredentialList({ kind: 'inline', text: `ops ${TOKEN}`, label: 'test tokens' }),
          ),
          failedAuthentications: false,
        },
        connection: { headers: { authorization: `Bearer ${TOKEN}` } },
      });
      const calls = (): LogEntry[] => logger.entries.filter((e) => e.message === 'request');
      const lineOf = (operation: string): Promise<LogEntry> =>
        logger.next((e) => e.message === 'request' && fieldsOf(e).operation === operation);
      const common = {
        binding: PROTOCOL_BINDINGS[binding],
        principal: 'ops',
        method: 'POST',
        path: expect.any(String) as unknown,
        durationMs: expect.any(Number) as unknown,
        requestId: expect.any(String) as unknown,
      };

      const task = await server.agent.sendTask(send(SECRET_TEXT));
      expect((await lineOf('SendMessage')).context).toEqual({
        ...common,
        operation: 'SendMessage',
        taskId: task.id,
        status: binding === 'grpc' ? 0 : 200,
        outcome: 'ok',
      });

      const missing = crypto.randomUUID();
      await rejection(server.agent.getTask({ id: missing }), TaskNotFoundError);
      const notFound = fieldsOf(await lineOf('GetTask'));
      expect(notFound).toMatchObject({
        ...common,
        method: binding === 'rest' ? 'GET' : 'POST',
        operation: 'GetTask',
        taskId: missing,
        outcome: 'error',
        errorReason: 'TASK_NOT_FOUND',
      });
      // The binding's own error code: JSON-RPC's, the HTTP status, the gRPC status code.
      const code = { jsonrpc: -32001, rest: 404, grpc: 5 }[binding];
      expect(notFound.errorCode).toBe(code);

      const stream = await server.agent.sendStreamingMessage(send('stream 2'));
      const events = await stream.rest();
      const streamed = fieldsOf(await lineOf('SendStreamingMessage'));
      expect(streamed).toMatchObject({
        ...common,
        operation: 'SendStreamingMessage',
        outcome: 'ok',
      });
      expect(events.length).toBeGreaterThan(0);
      expect(typeof streamed.taskId).toBe('string');

      // Refused before the operation: logged, without a principal.
      const stranger = createDriver(binding, server.agent.url, {
        headers: { authorization: 'Bearer not-a-valid-token-0123456789' },
      });
      await stranger.listTasks().catch(() => undefined);
      const refused = await logger.next(
        (e) => e.message === 'request' && [401, 16].includes(fieldsOf(e).status as number),
      );
      expect(fieldsOf(refused).principal).toBeUndefined();

      const logged = JSON.stringify(calls());
      expect(logged).not.toContain(TOKEN);
      expect(logged).not.toContain('not-a-valid-token');
      expect(logged).not.toContain('the-message-text');
    });
  },
  { stores: ['memory'] },
);
