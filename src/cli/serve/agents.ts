/**
 * `tandem serve --agent chat|orchestrator`: the agents that need configuration, beside the demo
 * agents that need none. The chat agent fronts an OpenAI-compatible endpoint (`--model-url`,
 * `--model`, the other settings by flag or `--config F`); the orchestrator delegates to peer
 * agents (`--peer URL`, repeatable), and routes with the model too when `--model-url` is given.
 *
 * The model's API key is read from `TANDEM_MODEL_API_KEY` only: a flag would show it in `ps`.
 */

import { readFileSync } from 'node:fs';
import { isDemoAgentName, loadDemoAgent } from '../../agents/index.js';
import type { ChatConfig, ChatSettings } from '../../agents/chat/chat-config.js';
import type { AgentDefinition, Logger } from '../../server.js';
import {
  parseDuration,
  parseNonNegativeInteger,
  parsePositiveInteger,
  UsageFailure,
} from '../cli-values.js';
import type { ServeOptionGroup } from './option-group.js';

/** The environment variable holding the model's API key. */
export const MODEL_API_KEY_ENV = 'TANDEM_MODEL_API_KEY';

import type { ServedAgentName } from './served-agent-name.js';

export { isServedAgentName, servedAgentNames, type ServedAgentName } from './served-agent-name.js';

/** The `parseArgs` options this module reads. */
export const AGENT_OPTIONS = {
  'model-url': { type: 'string' },
  model: { type: 'string' },
  config: { type: 'string' },
  'system-prompt': { type: 'string' },
  temperature: { type: 'string' },
  'max-tokens': { type: 'string' },
  'model-images': { type: 'boolean' },
  'model-timeout': { type: 'string' },
  'history-turns': { type: 'string' },
  'history-tokens': { type: 'string' },
  'chat-name': { type: 'string' },
  'chat-description': { type: 'string' },
  peer: { type: 'string', multiple: true },
  'peer-caller-ref': { type: 'boolean' },
} as const;

/** The help lines of {@link AGENT_OPTIONS}. */
export const AGENT_HELP = `The chat agent (--agent chat): an OpenAI-compatible /chat/completions endpoint as an A2A agent
  --model-url <url>       The API base URL, e.g. http://127.0.0.1:11434/v1 (the key: env ${MODEL_API_KEY_ENV})
  --model <name>          The model name sent with each request
  --config <path>         JSON settings: modelUrl, model, systemPrompt, temperature, maxTokens, name,
                          description, skills, history {maxTurns, maxTokens}, images, stream, timeoutMs
                          (flags override the file)
  --system-prompt <text>  The system prompt
  --temperature <t>       Sampling temperature, 0 to 2
  --max-tokens <n>        Longest answer, in tokens
  --model-images          The model reads images: image parts are passed on (png, jpeg, gif, webp)
  --model-timeout <dur>   Longest wait for the answer to start, then for each chunk, at least 1s
                          (default 60s)
  --history-turns <n>     Earlier exchanges of a context sent with each message (default 20, 0: none)
  --history-tokens <n>    About this many tokens of them at most (default 8000); oldest dropped first
  --chat-name <name>      The agent's name on its card (default Chat)
  --chat-description <t>  The agent's description on its card

The orchestrator (--agent orchestrator): delegates each request to the peer whose skills fit
  --peer <url>            A peer agent's base URL or card URL (repeatable)
  --peer-caller-ref       Tell peers who asks by an opaque reference (a digest of tenant and principal)
  --model-url, --model    Also given: the model routes requests (the skills' score otherwise)`;

type Values = {
  readonly [K in keyof typeof AGENT_OPTIONS]?: (typeof AGENT_OPTIONS)[K] extends {
    type: 'boolean';
  }
    ? boolean
    : (typeof AGENT_OPTIONS)[K] extends { multiple: true }
      ? string[]
      : string;
};

/** What the configured agents are served with. */
export interface ServedAgentSettings {
  readonly chat?: ChatConfig;
  readonly orchestrator?: {
    readonly peers: readonly string[];
    readonly callerReference: boolean;
    /** The routing model, when `--model-url` is given. */
    readonly model?: ChatConfig;
  };
  /** Read from the environment once, never printed. */
  readonly apiKey: string | undefined;
}

async function chatConfigModule() {
  return import('../../agents/chat/chat-config.js');
}

function readJsonFile(path: string, option: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new UsageFailure(`${option} ${path} cannot be read (${code})`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageFailure(`${option} ${path} is not JSON (${(error as Error).message})`);
  }
}

function parseTemperature(value: string): number {
  const temperature = Number(value);
  if (value.trim() === '' || !(temperature >= 0 && temperature <= 2)) {
    throw new UsageFailure(`--temperature must be a number between 0 and 2, got "${value}"`);
  }
  return temperature;
}

function orchestratorSettingsOf(
  values: Values,
  model: ChatConfig | undefined,
): NonNullable<ServedAgentSettings['orchestrator']> {
  const peers = values.peer ?? [];
  if (peers.length === 0) {
    throw new UsageFailure(
      '--agent orchestrator needs its peers: --peer http://127.0.0.1:41241/agents/dice (repeatable)',
    );
  }
  for (const peer of peers) {
    let url: URL | undefined;
    try {
      url = new URL(peer);
    } catch {
      url = undefined;
    }
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw new UsageFailure(`--peer must be an absolute http(s) URL, got "${peer}"`);
    }
  }
  return {
    peers: [...new Set(peers)],
    callerReference: values['peer-caller-ref'] === true,
    ...(model === undefined ? {} : { model }),
  };
}

/** The chat settings of the flags, over those of `--config`. */
async function chatSettingsOf(values: Values): Promise<ChatConfig> {
  const { parseChatSettings, resolveChatConfig, checkModelUrl } = await chatConfigModule();
  const file: ChatSettings =
    values.config === undefined
      ? {}
      : parseChatSettings(readJsonFile(values.config, '--config'), `--config ${values.config}`);
  const settings: { -readonly [K in keyof ChatSettings]: ChatSettings[K] } = { ...file };
  if (values['model-url'] !== undefined) {
    settings.modelUrl = checkModelUrl(values['model-url'], '--model-url');
  }
  if (values.model !== undefined) settings.model = values.model;
  if (values['system-prompt'] !== undefined) settings.systemPrompt = values['system-prompt'];
  if (values.temperature !== undefined) settings.temperature = parseTemperature(values.temperature);
  if (values['max-tokens'] !== undefined) {
    settings.maxTokens = parsePositiveInteger(values['max-tokens'], '--max-tokens');
  }
  if (values['model-images'] === true) settings.images = true;
  if (values['model-timeout'] !== undefined) {
    // A model takes at least a second to start answering; less would fail every request.
    settings.timeoutMs = parseDuration(values['model-timeout'], '--model-timeout', {
      minMs: 1000,
    });
  }
  if (values['history-turns'] !== undefined || values['history-tokens'] !== undefined) {
    const history = { ...settings.history };
    if (values['history-turns'] !== undefined) {
      history.maxTurns = parseNonNegativeInteger(values['history-turns'], '--history-turns');
      if (history.maxTurns > 99) throw new UsageFailure('--history-turns must be at most 99');
    }
    if (values['history-tokens'] !== undefined) {
      history.maxTokens = parsePositiveInteger(values['history-tokens'], '--history-tokens');
    }
    settings.history = history;
  }
  if (values['chat-name'] !== undefined) settings.name = values['chat-name'];
  if (values['chat-description'] !== undefined) settings.description = values['chat-description'];
  return resolveChatConfig(settings);
}

/**
 * Reads the flags of the configured agents among `agents`.
 *
 * @throws UsageFailure naming the flag or the setting that is wrong or missing.
 */
export async function parseServedAgents(
  values: Values,
  agents: readonly string[],
): Promise<ServedAgentSettings> {
  const apiKey = process.env[MODEL_API_KEY_ENV];
  const key = apiKey === undefined || apiKey === '' ? undefined : apiKey;
  const orchestrating = agents.includes('orchestrator');
  if (!orchestrating && (values.peer !== undefined || values['peer-caller-ref'] === true)) {
    throw new UsageFailure('--peer and --peer-caller-ref are settings of --agent orchestrator');
  }
  if (!agents.includes('chat') && !orchestrating && values['model-url'] !== undefined) {
    throw new UsageFailure('--model-url is a setting of --agent chat (or orchestrator, to route)');
  }
  if (!agents.includes('chat')) {
    const chatOnly = (['config', 'system-prompt', 'chat-name'] as const).find(
      (flag) => values[flag] !== undefined,
    );
    if (chatOnly !== undefined)
      throw new UsageFailure(`--${chatOnly} is a setting of --agent chat`);
  }
  try {
    const chat = agents.includes('chat') ? await chatSettingsOf(values) : undefined;
    const routing =
      orchestrating && values['model-url'] !== undefined
        ? (chat ?? (await chatSettingsOf(values)))
        : undefined;
    const orchestrator = orchestrating ? orchestratorSettingsOf(values, routing) : undefined;
    return {
      apiKey: key,
      ...(chat === undefined ? {} : { chat }),
      ...(orchestrator === undefined ? {} : { orchestrator }),
    };
  } catch (error) {
    if (error instanceof UsageFailure) throw error;
    if (error instanceof Error && error.name === 'ConfigurationError') {
      throw new UsageFailure(error.message);
    }
    throw error;
  }
}

/** Loads the agent called `name`, with its settings. */
export async function loadServedAgent(
  name: ServedAgentName,
  settings: ServedAgentSettings,
  logger?: Logger,
): Promise<AgentDefinition> {
  if (isDemoAgentName(name)) return loadDemoAgent(name);
  switch (name) {
    case 'chat': {
      const { createChatAgent } = await import('../../agents/chat/chat-agent.js');
      if (settings.chat === undefined) throw new UsageFailure('--agent chat is not configured');
      return createChatAgent(settings.chat, { apiKey: settings.apiKey, logger });
    }
    case 'orchestrator': {
      const { createOrchestratorAgent } =
        await import('../../agents/orchestrator/orchestrator-agent.js');
      const { chatModelOptions } = await import('../../agents/chat/chat-agent.js');
      const config = settings.orchestrator;
      if (config === undefined) throw new UsageFailure('--agent orchestrator is not configured');
      return createOrchestratorAgent({
        peers: config.peers,
        callerReference: config.callerReference,
        logger,
        ...(config.model === undefined
          ? {}
          : { routingModel: chatModelOptions(config.model, settings.apiKey) }),
      });
    }
  }
}

/** The settings of the configured agents (chat, orchestrator), for those `--agent` names. */
export const AGENTS_GROUP = {
  options: AGENT_OPTIONS,
  help: AGENT_HELP,
  parse: (values, context) => parseServedAgents(values, context.agents),
} satisfies ServeOptionGroup<Values, ServedAgentSettings>;
