/**
 * A request body over the limit of the JSON-RPC endpoint, end to end: a 5 MiB SendMessage is
 * refused with 413 and a JSON-RPC -32600 before it reaches the agent, and does no harm — no task,
 * no execution, an open stream and a running task carry on, and the server keeps serving —
 * against every store.
 */

import { expect, it } from 'vitest';
import { defineAgent } from '../../../src/server.js';
import { testCard } from '../../support/agents.js';
import { useBehaviourEnv } from '../../support/behaviour-env.js';
import { describeEvent } from '../../support/events.js';
import { describeMatrix } from '../../support/matrix.js';
import { artifactTexts, send } from '../../support/messages.js';
import { deferred } from '../../support/sync.js';

const A2A_HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };

const FIVE_MIB = 5 * 1024 * 1024;

function bigBody(): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 'big',
    method: 'SendMessage',
    params: send('x'.repeat(FIVE_MIB)),
  });
}

/** The body as a chunked upload without Content-Length: the limit is found while reading. */
function chunked(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.subarray(offset, offset + 64 * 1024));
      offset += 64 * 1024;
    },
  });
}

describeMatrix(
  'JSON-RPC request body limit',
  (axis) => {
    const env = useBehaviourEnv(axis);

    it('refuses a 5 MiB body with 413 and no harm to the server or running work', async () => {
      const started = deferred();
      const release = deferred();
      const texts: number[] = [];
      const { agent } = await env.serve(
        defineAgent({
          card: testCard('Sizer'),
          async execute(ctx) {
            texts.push(ctx.text.length);
            if (ctx.text === 'wait') {
              await ctx.working();
              started.resolve();
              await release.promise;
            }
            await ctx.artifact(`length ${ctx.text.length}`);
          },
        }),
      );
      const stream = await agent.sendStreamingMessage(send('wait'));
      await started.promise;
      expect((await stream.next())?.response.task?.status.state).toBe('TASK_STATE_SUBMITTED');

      const body = bigBody();
      const response = await fetch(agent.url, {
        method: 'POST',
        headers: A2A_HEADERS,
        body,
      });
      expect(response.status).toBe(413);
      expect(response.headers.get('connection')).toBe('close');
      expect(await response.json()).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Request body exceeds the 4 MiB limit' },
      });

      // Nothing ran and nothing was stored for it.
      expect(texts).toEqual([4]);
      const listed = await agent.listTasks();
      expect(listed.totalSize).toBe(1);
      // A message well under the limit still goes through.
      const oneMiB = await agent.sendTask(send('y'.repeat(1024 * 1024)));
      expect(artifactTexts(oneMiB)).toEqual([[`length ${1024 * 1024}`]]);
      // The stream opened before the refusal carries on to the end.
      release.resolve();
      expect((await stream.rest()).map(describeEvent)).toEqual([
        '2 status TASK_STATE_WORKING',
        '3 artifact length 4',
        '4 status TASK_STATE_COMPLETED',
      ]);
    });

    it('refuses a 5 MiB chunked body without Content-Length as soon as it crosses the limit', async () => {
      let executions = 0;
      const { agent } = await env.serve(
        defineAgent({
          card: testCard('Counter'),
          execute: () => {
            executions++;
          },
        }),
      );
      const response = await fetch(agent.url, {
        method: 'POST',
        headers: A2A_HEADERS,
        body: chunked(bigBody()),
        duplex: 'half',
      });
      expect(response.status).toBe(413);
      expect(response.headers.get('connection')).toBe('close');
      expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32600);
      expect(executions).toBe(0);
      expect((await agent.listTasks()).totalSize).toBe(0);
      expect((await agent.sendTask(send('small'))).status.state).toBe('TASK_STATE_COMPLETED');
      expect(executions).toBe(1);
    });
  },
  { bindings: ['jsonrpc'] },
);
