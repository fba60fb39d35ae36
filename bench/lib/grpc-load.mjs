/**
 * Closed-loop gRPC load on one HTTP/2 connection (a channel, as gRPC clients use one): `inFlight`
 * workers, each making its next call as soon as the previous one ended, for a time or a number
 * of calls. Unary calls give calls/s and latency; server-streaming calls give chunks/s and the
 * time to the first and last message. Every answer is checked — status OK and, for unary calls,
 * the decoded response; for streams, the count of artifact messages and the final state — so a
 * fast wrong answer counts as a failure, not as speed.
 */

import { performance } from 'node:perf_hooks';
import { GRPC_STATUS, GrpcChannel, a2aTypes } from './grpc-client.mjs';
import { Samples } from './stats.mjs';

/**
 * The first byte of a `StreamResponse` whose payload is `artifact_update` (field 4, wire type 2):
 * enough to count chunks without decoding each one.
 */
const ARTIFACT_UPDATE_TAG = (4 << 3) | 2;

/**
 * Runs `inFlight` workers until the deadline (or until `amount` calls were made).
 * `call()` makes one call and returns its outcome and whether it is a success.
 */
async function closedLoop({ inFlight, seconds, amount, call }) {
  const started = performance.now();
  const deadline = seconds === undefined ? Number.POSITIVE_INFINITY : started + seconds * 1000;
  let issued = 0;
  const worker = async () => {
    while (performance.now() < deadline && (amount === undefined || issued < amount)) {
      issued++;
      await call();
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return (performance.now() - started) / 1000;
}

/**
 * Unary calls of `method` with `nextRequest()` bodies; `verify(bytes)` checks each response.
 * @returns {Promise<import('./load.mjs').LoadResult & {firstError?: string}>}
 */
export async function runGrpcLoad({
  port,
  method,
  inFlight,
  seconds,
  amount,
  nextRequest,
  verify,
}) {
  const channel = new GrpcChannel(port);
  const latencies = new Samples();
  let requests = 0;
  let failures = 0;
  let firstError;
  try {
    const elapsed = await closedLoop({
      inFlight,
      seconds,
      amount,
      call: async () => {
        const outcome = await channel.call(method, nextRequest());
        requests++;
        const ok =
          outcome.status === GRPC_STATUS.OK && outcome.messages === 1 && verify(outcome.last);
        if (!ok) {
          failures++;
          firstError ??= outcome.error ?? `${method}: the response failed its check`;
          return;
        }
        latencies.add(outcome.endMs);
      },
    });
    const [p50Ms, p99Ms] = latencies.quantiles(0.5, 0.99);
    return {
      requests,
      rps: requests / elapsed,
      p50Ms,
      p99Ms,
      failures,
      seconds: elapsed,
      ...(firstError === undefined ? {} : { firstError }),
    };
  } finally {
    await channel.close();
  }
}

/** A check of a `SendMessageResponse`: a completed task whose artifact's text is `text`. */
export function completedEcho(text) {
  const { SendMessageResponse, TaskState } = a2aTypes();
  return (bytes) => {
    const task = SendMessageResponse.decode(bytes).task;
    return (
      task?.status?.state === TaskState.TASK_STATE_COMPLETED &&
      task.artifacts?.[0]?.parts?.[0]?.text === text
    );
  };
}

/**
 * `SendStreamingMessage` of a `stream <chunks> …` command in a closed loop of `inFlight` streams
 * until `seconds` have passed; streams open at the deadline run to their end and the run is
 * measured to the last one (as the SSE scenario c does).
 */
export async function grpcStreamLoop({ port, nextRequest, chunks, inFlight, seconds }) {
  const { StreamResponse, TaskState } = a2aTypes();
  const channel = new GrpcChannel(port);
  const firstEvent = new Samples();
  const lastEvent = new Samples();
  let chunkCount = 0;
  let streams = 0;
  let failures = 0;
  let firstError;
  try {
    const elapsed = await closedLoop({
      inFlight,
      seconds,
      call: async () => {
        let artifactMessages = 0;
        const outcome = await channel.call('SendStreamingMessage', nextRequest(), {
          timeoutMs: 60_000,
          onMessage: (bytes) => {
            if (bytes[0] === ARTIFACT_UPDATE_TAG) artifactMessages++;
          },
        });
        streams++;
        chunkCount += artifactMessages;
        const completed =
          outcome.last !== undefined &&
          StreamResponse.decode(outcome.last).statusUpdate?.status?.state ===
            TaskState.TASK_STATE_COMPLETED;
        if (outcome.status !== GRPC_STATUS.OK || artifactMessages !== chunks || !completed) {
          failures++;
          firstError ??=
            outcome.error ??
            (completed
              ? `${artifactMessages} chunks, expected ${chunks}`
              : 'the stream did not end with a COMPLETED status update');
          return;
        }
        firstEvent.add(outcome.firstMessageMs);
        lastEvent.add(outcome.lastMessageMs);
      },
    });
    const [ttfeP50Ms, ttfeP99Ms] = firstEvent.quantiles(0.5, 0.99);
    const [ttleP50Ms, ttleP99Ms] = lastEvent.quantiles(0.5, 0.99);
    return {
      chunksPerSec: chunkCount / elapsed,
      streamsPerSec: streams / elapsed,
      chunks: chunkCount,
      ttfeP50Ms,
      ttfeP99Ms,
      ttleP50Ms,
      ttleP99Ms,
      failures,
      ...(firstError === undefined ? {} : { firstError }),
    };
  } finally {
    await channel.close();
  }
}
