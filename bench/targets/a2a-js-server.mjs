/**
 * The benchmark agent (bench-agent.md) written with the official SDK, `@a2a-js/sdk`, the way its
 * own samples are written (sample-agent, cancellable-agent, multi-transport-agent): an
 * `AgentExecutor` publishing events to the `ExecutionEventBus`, `DefaultRequestHandler` over
 * `InMemoryTaskStore`, the SDK's express handlers for the card, JSON-RPC and HTTP+JSON/REST, and,
 * when `GRPC_PORT` is set, its `grpcService` on a `@grpc/grpc-js` server — all three transports
 * over the one request handler. Untuned on purpose: it measures what a user of the SDK gets by
 * following its documentation. The samples' per-request `console.log` lines are left out because
 * the contract forbids per-request logging.
 *
 * gRPC is loaded only when asked for, so that the scenarios that do not use it measure the same
 * process as before (start-up time, memory).
 *
 * Run: `PORT=41251 [GRPC_PORT=41252] node bench/targets/a2a-js-server.mjs`
 */

import express from 'express';
import { AGENT_CARD_PATH, A2A_PROTOCOL_VERSION, TaskState } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import {
  UserBuilder,
  agentCardHandler,
  jsonRpcHandler,
  restHandler,
} from '@a2a-js/sdk/server/express';

const PORT = Number(process.env.PORT || 41251);
const GRPC_PORT = process.env.GRPC_PORT ? Number(process.env.GRPC_PORT) : undefined;
const HOST = process.env.HOST || '127.0.0.1';

function textPart(text) {
  return {
    content: { $case: 'text', value: text },
    metadata: undefined,
    filename: '',
    mediaType: 'text/plain',
  };
}

/** Implements the commands of bench-agent.md: `echo`, `stream` and `slowstream`. */
class EchoAgentExecutor {
  cancelledTasks = new Set();

  cancelTask = async (taskId) => {
    this.cancelledTasks.add(taskId);
  };

  async execute(requestContext, eventBus) {
    const userMessage = requestContext.userMessage;
    const taskId = requestContext.taskId;
    const contextId = requestContext.contextId;
    const part = userMessage.parts.find((p) => p.content?.$case === 'text');
    const text = part?.content?.$case === 'text' ? part.content.value : '';
    try {
      // 1. Publish the initial Task event if it's a new task.
      if (!requestContext.task) {
        eventBus.publish(
          AgentEvent.task({
            id: taskId,
            contextId,
            status: {
              state: TaskState.TASK_STATE_SUBMITTED,
              timestamp: new Date().toISOString(),
              message: undefined,
            },
            artifacts: [],
            history: [userMessage],
            metadata: userMessage.metadata,
          }),
        );
      }

      if (text === 'echo' || text.startsWith('echo ')) {
        this.publishChunk(
          eventBus,
          taskId,
          contextId,
          crypto.randomUUID(),
          text.slice(5),
          false,
          true,
        );
        this.publishState(eventBus, taskId, contextId, TaskState.TASK_STATE_COMPLETED);
        return;
      }

      const [command, ...args] = text.trim().split(/\s+/);
      const slow = command === 'slowstream';
      if ((command !== 'stream' && !slow) || args.length < 2 || args.length > (slow ? 3 : 2)) {
        this.publishState(eventBus, taskId, contextId, TaskState.TASK_STATE_REJECTED);
        return;
      }
      const chunks = Number(args[0]);
      const delayMs = slow ? Number(args[1]) : 0;
      const bytes = Number(slow ? (args[2] ?? 64) : args[1]);

      // 2. Move into the working state.
      this.publishState(eventBus, taskId, contextId, TaskState.TASK_STATE_WORKING);

      // 3. Stream the artifact, one chunk per event-loop turn (or per timer), checking for
      //    cancellation before every chunk.
      const artifactId = crypto.randomUUID();
      const chunk = 'x'.repeat(bytes);
      for (let i = 0; i < chunks; i++) {
        if (slow) await new Promise((resolve) => setTimeout(resolve, delayMs));
        else await new Promise((resolve) => setImmediate(resolve));
        if (this.cancelledTasks.has(taskId)) {
          this.publishState(eventBus, taskId, contextId, TaskState.TASK_STATE_CANCELED);
          return;
        }
        this.publishChunk(eventBus, taskId, contextId, artifactId, chunk, i > 0, i === chunks - 1);
      }

      // 4. Publish the final task status update.
      this.publishState(eventBus, taskId, contextId, TaskState.TASK_STATE_COMPLETED);
    } finally {
      this.cancelledTasks.delete(taskId);
    }
  }

  publishState(eventBus, taskId, contextId, state) {
    eventBus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: { state, timestamp: new Date().toISOString(), message: undefined },
        metadata: {},
      }),
    );
  }

  publishChunk(eventBus, taskId, contextId, artifactId, text, append, lastChunk) {
    eventBus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId,
          name: '',
          description: '',
          parts: [textPart(text)],
          metadata: undefined,
          extensions: [],
        },
        append,
        lastChunk,
        metadata: undefined,
      }),
    );
  }
}

const echoAgentCard = {
  name: 'Echo (a2a-js)',
  description: 'The benchmark agent of bench-agent.md on @a2a-js/sdk.',
  supportedInterfaces: [
    {
      url: `http://localhost:${PORT}/a2a/jsonrpc`,
      protocolBinding: 'JSONRPC',
      tenant: '',
      protocolVersion: A2A_PROTOCOL_VERSION,
    },
    {
      url: `http://localhost:${PORT}/a2a/rest`,
      protocolBinding: 'HTTP+JSON',
      tenant: '',
      protocolVersion: A2A_PROTOCOL_VERSION,
    },
    ...(GRPC_PORT === undefined
      ? []
      : [
          {
            url: `localhost:${GRPC_PORT}`,
            protocolBinding: 'GRPC',
            tenant: '',
            protocolVersion: A2A_PROTOCOL_VERSION,
          },
        ]),
  ],
  provider: { organization: 'Tandem benchmarks', url: 'https://example.com/tandem' },
  version: '1.0.0',
  capabilities: {
    streaming: true,
    pushNotifications: false,
    extensions: [],
    extendedAgentCard: false,
  },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text'],
  defaultOutputModes: ['text'],
  skills: [
    {
      id: 'echo',
      name: 'Echo',
      description: 'echo <text>, stream <n> <bytes>, slowstream <n> <ms> [bytes=64]',
      tags: ['benchmark'],
      examples: ['echo hi', 'stream 5 16'],
      inputModes: ['text'],
      outputModes: ['text'],
      securityRequirements: [],
    },
  ],
  documentationUrl: '',
  signatures: [],
};

const taskStore = new InMemoryTaskStore();
const agentExecutor = new EchoAgentExecutor();
const requestHandler = new DefaultRequestHandler(echoAgentCard, taskStore, agentExecutor);

const app = express();
app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
app.use(
  '/a2a/jsonrpc',
  jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }),
);
app.use('/a2a/rest', restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));

if (GRPC_PORT !== undefined) {
  // The gRPC server is bound before the HTTP one, so that a harness that waits for the card
  // finds gRPC listening too.
  const grpc = await import('@grpc/grpc-js');
  const { A2AService, grpcService } = await import('@a2a-js/sdk/server/grpc');
  const grpcServer = new grpc.Server();
  grpcServer.addService(
    A2AService,
    grpcService({ requestHandler, userBuilder: UserBuilder.noAuthentication }),
  );
  await new Promise((resolve, reject) =>
    grpcServer.bindAsync(
      `${HOST}:${GRPC_PORT}`,
      grpc.ServerCredentials.createInsecure(),
      (err, port) => (err ? reject(err) : resolve(port)),
    ),
  );
}

app.listen(PORT, HOST, (err) => {
  if (err) throw err;
});
process.on('SIGTERM', () => process.exit(0));
