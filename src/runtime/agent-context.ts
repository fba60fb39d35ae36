/**
 * The {@link AgentContext} an agent's `execute` receives: one object per execution, holding only
 * what the agent may see and calling the execution, through its {@link ExecutionPort}, for what it
 * may do. The execution itself, its run and the store stay out of reach (the port is held in a
 * private field), so agent code can neither write around the runtime's checks nor lean on its
 * internals.
 */

import type { Artifact, Message, Task } from '../protocol/generated/types.js';
import type { Struct } from '../protocol/json.js';
import type {
  AgentContext,
  ArtifactStream,
  ArtifactStreamOptions,
  ArtifactUpdateOptions,
  Caller,
} from './agent.js';
import { artifactOf, type MessageContent } from './agent-content.js';
import { ExecutionArtifactStream } from './artifact-stream.js';
import type { ExecutionPort } from './execution-port.js';

/** The context of one execution. */
export class ExecutionContext implements AgentContext {
  readonly message: Message;
  readonly taskId: string;
  readonly contextId: string;
  readonly task: Task | undefined;
  readonly caller: Caller;
  readonly extensions: readonly string[];
  readonly acceptedOutputModes: readonly string[] | undefined;
  readonly metadata: Struct | undefined;
  readonly #execution: ExecutionPort;

  constructor(execution: ExecutionPort) {
    const { init } = execution;
    this.#execution = execution;
    this.message = init.message;
    this.taskId = execution.taskId;
    this.contextId = execution.contextId;
    this.task = init.task;
    this.caller = init.caller;
    this.extensions = init.extensions;
    this.acceptedOutputModes = init.acceptedOutputModes;
    this.metadata = init.metadata;
  }

  get text(): string {
    let text = '';
    for (const part of this.message.parts) {
      if (part.text !== undefined) text = text === '' ? part.text : `${text}\n${part.text}`;
    }
    return text;
  }

  get signal(): AbortSignal {
    return this.#execution.signal;
  }

  contextTasks(options: { limit?: number } = {}): Promise<Task[]> {
    return this.#execution.contextTasks(options.limit ?? 20);
  }

  reply(content: MessageContent, options: { metadata?: Struct } = {}): Promise<void> {
    return this.#execution.reply(content, options.metadata);
  }

  async working(message?: MessageContent): Promise<void> {
    await this.#execution.changeStatus('TASK_STATE_WORKING', message);
  }

  async artifact(
    content: MessageContent | Artifact,
    options: ArtifactUpdateOptions = {},
  ): Promise<string> {
    const artifact = artifactOf(content, options);
    const append = options.append === true;
    // An artifact written in one piece is its own last chunk; clients (Google ADK's among them)
    // wait for `lastChunk` before they take an artifact as complete.
    await this.#execution.emitArtifact(artifact, append, options.lastChunk ?? !append);
    return artifact.artifactId;
  }

  artifactStream(options: ArtifactStreamOptions = {}): ArtifactStream {
    return new ExecutionArtifactStream(this.#execution, options);
  }

  async append(
    artifactId: string,
    content: MessageContent,
    options: { lastChunk?: boolean } = {},
  ): Promise<void> {
    const artifact = artifactOf(content, { artifactId });
    await this.#execution.emitArtifact(artifact, true, options.lastChunk === true);
  }

  async inputRequired(message: MessageContent): Promise<void> {
    await this.#execution.changeStatus('TASK_STATE_INPUT_REQUIRED', message);
  }

  async authRequired(message: MessageContent): Promise<void> {
    await this.#execution.changeStatus('TASK_STATE_AUTH_REQUIRED', message);
  }

  async complete(message?: MessageContent): Promise<void> {
    await this.#execution.changeStatus('TASK_STATE_COMPLETED', message);
  }

  async fail(reason?: MessageContent): Promise<void> {
    await this.#execution.changeStatus('TASK_STATE_FAILED', reason);
  }

  async reject(reason?: MessageContent): Promise<void> {
    await this.#execution.changeStatus('TASK_STATE_REJECTED', reason);
  }
}
