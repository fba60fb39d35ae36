/**
 * Scenarios over gRPC (spec 10), driven by the harness's own HTTP/2 client on one connection
 * (`lib/grpc-client.mjs`), every answer checked:
 * grpc-a. unary `SendMessage` of `echo hi` (each call a new task), as many calls in flight as
 *   scenario a has connections;
 * grpc-c100. `SendStreamingMessage` of `stream 100 64`, as many streams in flight as scenario c.
 * The server's gRPC port is started only for these scenarios.
 */

import { completedEcho, grpcStreamLoop, runGrpcLoad } from '../lib/grpc-load.mjs';
import { sendMessageRequests } from '../lib/grpc-client.mjs';
import { createMessageIds } from '../lib/json-rpc.mjs';
import { LATENCY_COLUMNS } from './request-load.mjs';
import { STREAM_COLUMNS } from './streaming.mjs';

const GRPC_TARGETS = ['floor', 'a2a-js', 'tandem'];

export const grpcSendMessage = {
  id: 'grpc-a',
  title: (c) =>
    `grpc-a. gRPC SendMessage \`echo hi\` (unary), ${c.connections} calls in flight on 1 connection, ${c.seconds} s`,
  appliesTo: GRPC_TARGETS,
  transport: 'grpc',
  base: { scenario: 'a', label: 'JSON-RPC' },
  key: { metric: 'rps', label: 'req/s' },
  columns: [{ metric: 'rps', label: 'req/s', format: 'int' }, ...LATENCY_COLUMNS],
  async measure(ctx) {
    const load = {
      port: ctx.server.grpcPort,
      method: 'SendMessage',
      inFlight: ctx.config.connections,
      nextRequest: sendMessageRequests('echo hi', createMessageIds()),
      verify: completedEcho('hi'),
    };
    if (ctx.config.warmupSeconds > 0)
      await runGrpcLoad({ ...load, seconds: ctx.config.warmupSeconds });
    ctx.sampler.start();
    const result = await runGrpcLoad({ ...load, seconds: ctx.config.seconds });
    return { ...result, ...ctx.sampler.stop() };
  },
};

/** The gRPC row of scenario c at one stream length. */
export function grpcStreamScenario(chunks) {
  return {
    id: `grpc-c${chunks}`,
    title: (c) =>
      `grpc-c${chunks}. gRPC SendStreamingMessage \`stream ${chunks} ${c.chunkBytes}\`, ${c.streamsInFlight} in flight on 1 connection, ${c.seconds} s`,
    appliesTo: GRPC_TARGETS,
    transport: 'grpc',
    base: { scenario: `c${chunks}`, label: 'JSON-RPC' },
    key: { metric: 'chunksPerSec', label: 'chunks/s' },
    columns: STREAM_COLUMNS,
    async measure(ctx) {
      const load = {
        port: ctx.server.grpcPort,
        nextRequest: sendMessageRequests(
          `stream ${chunks} ${ctx.config.chunkBytes}`,
          createMessageIds(),
        ),
        chunks,
        inFlight: ctx.config.streamsInFlight,
      };
      if (ctx.config.warmupSeconds > 0)
        await grpcStreamLoop({ ...load, seconds: ctx.config.warmupSeconds });
      ctx.sampler.start();
      const result = await grpcStreamLoop({ ...load, seconds: ctx.config.seconds });
      const usage = ctx.sampler.stop();
      return { ...result, ...usage, cpuUsPerChunk: (usage.serverCpuSeconds * 1e6) / result.chunks };
    },
  };
}
