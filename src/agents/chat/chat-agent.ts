/**
 * The chat agent: any OpenAI-compatible `/chat/completions` endpoint as an A2A agent. Each A2A
 * context is its own conversation (its history is the context's earlier tasks, see
 * `chat-history.ts`), each message its own task, answered by one artifact `answer` whose chunks
 * are the model's tokens as they come. CancelTask aborts the model request at once; a model that
 * fails fails the task with a reason that names no key and no URL, and the failure is logged at
 * warn with the task id and that same reason — never the model's text or the conversation.
 */

import { defineAgent, silentLogger, type AgentDefinition, type Logger } from '../../server.js';
import { completeChat, type ChatModelOptions, type ChatOutcome } from './chat-completions.js';
import { IMAGE_MEDIA_TYPES, type ChatConfig } from './chat-config.js';
import { conversationOf } from './chat-history.js';
import { userContentOf } from './chat-input.js';
import { ModelError } from './model-error.js';

/** What the chat agent needs besides its configuration. */
export interface ChatAgentOptions {
  /** Sent as `Authorization: Bearer`; read by `tandem serve` from `TANDEM_MODEL_API_KEY`. */
  readonly apiKey?: string | undefined;
  /** Where each failed model call is logged, at warn. Default: nothing is logged. */
  readonly logger?: Logger | undefined;
}

/** The media types the chat agent accepts, as its card declares them. */
export function chatInputModes(config: Pick<ChatConfig, 'images'>): string[] {
  return config.images ? ['text/plain', ...IMAGE_MEDIA_TYPES] : ['text/plain'];
}

/** The model request settings of a configuration. */
export function chatModelOptions(config: ChatConfig, apiKey: string | undefined): ChatModelOptions {
  return {
    baseUrl: config.modelUrl,
    model: config.model,
    apiKey: apiKey === '' ? undefined : apiKey,
    temperature: config.temperature,
    maxTokens: config.maxTokens,
    stream: config.stream,
    timeoutMs: config.timeoutMs,
  };
}

/** Creates the chat agent of a configuration. */
export function createChatAgent(
  config: ChatConfig,
  options: ChatAgentOptions = {},
): AgentDefinition {
  const model = chatModelOptions(config, options.apiKey);
  const logger = options.logger ?? silentLogger;
  return defineAgent({
    card: {
      name: config.name,
      description: config.description,
      version: '1.0.0',
      defaultInputModes: chatInputModes(config),
      defaultOutputModes: ['text/plain'],
      capabilities: { streaming: true },
      skills: config.skills,
    },
    async execute(ctx) {
      // Refuses what the model cannot read before a task exists (the call gets the error).
      const current = userContentOf(ctx.message.parts, config.images);
      const messages = await conversationOf(ctx, config, current);
      await ctx.working();
      const out = ctx.artifactStream({ name: 'answer' });
      const outcome: ChatOutcome = {};
      try {
        for await (const piece of completeChat(model, messages, ctx.signal, outcome)) {
          await out.append(piece);
        }
      } catch (error) {
        // Canceled: the task is CANCELED already, and anything written now would be dropped.
        if (ctx.signal.aborted) return;
        if (!(error instanceof ModelError)) throw error;
        // The reason is the task's, safe to show: it names no key and no URL of the model.
        logger.warn(
          {
            taskId: ctx.taskId,
            contextId: ctx.contextId,
            model: config.model,
            reason: error.message,
          },
          'chat agent: the model call failed',
        );
        // What the model said before it failed stays readable, marked complete as it is.
        await out.end();
        return ctx.fail(error.message);
      }
      await out.end();
      // The answer is all there is, but the caller should know it was cut short.
      if (outcome.finishReason === 'length') {
        return ctx.complete('The answer was cut short at the token limit (maxTokens).');
      }
      if (outcome.finishReason === 'content_filter') {
        return ctx.complete("The answer was cut short by the model's content filter.");
      }
    },
  });
}
