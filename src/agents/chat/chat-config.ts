/**
 * The configuration of the chat agent: which OpenAI-compatible endpoint and model it fronts, how
 * it answers (system prompt, temperature, token limit), how it presents itself (name,
 * description, skills) and how much of a conversation it sends back to the model. It comes from
 * `tandem serve` flags or a JSON file (`--config F`); the file is checked field by field, and
 * every mistake is reported with its path. The API key is never part of it: it is read from
 * `TANDEM_MODEL_API_KEY` only, so that it shows in no file, flag or card.
 */

import * as v from 'valibot';
import { closestMatch, ConfigurationError } from '../../index.js';
import type { AgentCardInput } from '../../server.js';

/** How much of a context's earlier conversation goes back to the model with each message. */
export interface HistoryBudget {
  /** Earlier exchanges (one per earlier task of the context) kept at most. */
  readonly maxTurns: number;
  /**
   * Approximate tokens of the earlier exchanges kept at most, counted as one token per four
   * characters of text and {@link IMAGE_TOKENS} per image.
   */
  readonly maxTokens: number;
}

/** The chat agent's settings, complete (defaults applied). */
export interface ChatConfig {
  /** The API base URL as OpenAI clients take it, e.g. `http://127.0.0.1:11434/v1`. */
  readonly modelUrl: string;
  /** The model name sent with each request. */
  readonly model: string;
  readonly systemPrompt: string | undefined;
  readonly temperature: number | undefined;
  /** `max_tokens` of each request. */
  readonly maxTokens: number | undefined;
  readonly name: string;
  readonly description: string;
  readonly skills: AgentCardInput['skills'];
  readonly history: HistoryBudget;
  /** The model accepts images: image parts are passed on, and the card says so. */
  readonly images: boolean;
  /** Ask the model for a token stream (`stream: true`); otherwise one whole answer. */
  readonly stream: boolean;
  /**
   * How long the model may take to start answering, and then to send each next chunk, in ms;
   * the request is aborted and the task fails after that.
   */
  readonly timeoutMs: number;
}

/** Tokens an image counts for in the {@link HistoryBudget}. */
export const IMAGE_TOKENS = 1_000;

/** The image media types passed to the model when {@link ChatConfig.images} is on. */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

/** Defaults of the optional settings. */
export const CHAT_DEFAULTS = {
  name: 'Chat',
  description: 'A chat model answering in conversations: each A2A context is one conversation.',
  history: { maxTurns: 20, maxTokens: 8_000 },
  images: false,
  stream: true,
  timeoutMs: 60_000,
} as const;

const text = v.pipe(v.string(), v.trim(), v.nonEmpty('must not be empty'));
const positiveInteger = (max: number) =>
  v.pipe(
    v.number('must be a number'),
    v.integer('must be an integer'),
    v.minValue(1, 'must be at least 1'),
    v.maxValue(max, `must be at most ${max}`),
  );

const skillSchema = v.strictObject({
  id: text,
  name: text,
  description: text,
  tags: v.pipe(v.array(text), v.minLength(1, 'must list at least one tag')),
  examples: v.optional(v.array(text)),
});

/** The JSON file's shape: every field optional, unknown fields refused. */
const fileSchema = v.strictObject({
  modelUrl: v.optional(text),
  model: v.optional(text),
  systemPrompt: v.optional(v.string()),
  temperature: v.optional(
    v.pipe(
      v.number('must be a number'),
      v.minValue(0, 'must be between 0 and 2'),
      v.maxValue(2, 'must be between 0 and 2'),
    ),
  ),
  maxTokens: v.optional(positiveInteger(1_000_000)),
  name: v.optional(text),
  description: v.optional(text),
  skills: v.optional(v.pipe(v.array(skillSchema), v.minLength(1, 'must list at least one skill'))),
  history: v.optional(
    v.strictObject({
      // The context's tasks are read in one page of at most 100 (the current one included).
      maxTurns: v.optional(
        v.pipe(
          v.number('must be a number'),
          v.integer('must be an integer'),
          v.minValue(0, 'must be at least 0'),
          v.maxValue(99, 'must be at most 99'),
        ),
      ),
      maxTokens: v.optional(positiveInteger(10_000_000)),
    }),
  ),
  images: v.optional(v.boolean('must be true or false')),
  stream: v.optional(v.boolean('must be true or false')),
  timeoutMs: v.optional(positiveInteger(3_600_000)),
});

/** What a JSON file or the flags give: any subset of the settings. */
export type ChatSettings = v.InferOutput<typeof fileSchema>;

/** The settings of the object schema `keys` leads to from the file's (for a did-you-mean). */
function settingsAt(keys: readonly unknown[]): string[] {
  let schema: unknown = fileSchema;
  const unwrap = (value: unknown): Record<string, unknown> | undefined => {
    let current = value as Record<string, unknown> | undefined;
    // Through optional (wrapped), array (item) and pipe (its first schema) to the object.
    while (current !== undefined && !('entries' in current)) {
      const pipe = current.pipe as unknown[] | undefined;
      current = (current.wrapped ?? current.item ?? pipe?.[0]) as
        Record<string, unknown> | undefined;
    }
    return current;
  };
  for (const key of keys) {
    if (typeof key === 'number') continue;
    schema = (unwrap(schema)?.entries as Record<string, unknown> | undefined)?.[String(key)];
  }
  const entries = unwrap(schema)?.entries;
  return typeof entries === 'object' && entries !== null ? Object.keys(entries) : [];
}

function describeIssue(issue: v.BaseIssue<unknown>): string {
  const path = issue.path?.map((item) => String(item.key)).join('.') ?? '';
  if (issue.kind === 'schema' && issue.type === 'strict_object' && issue.input !== undefined) {
    const key = path.split('.').pop() ?? '';
    if (key === 'apiKey' || key === 'api_key') {
      return `${path}: the API key is read from the environment variable TANDEM_MODEL_API_KEY only, never from a file`;
    }
    const parents = (issue.path ?? []).slice(0, -1).map((item) => item.key);
    const near = closestMatch(key, settingsAt(parents));
    return `${path}: unknown setting${near === undefined ? '' : `; did you mean "${near}"?`}`;
  }
  if (issue.kind === 'schema' && issue.type === 'strict_object') return `${path}: is required`;
  return `${path === '' ? '(the file)' : path}: ${issue.message}`;
}

/**
 * Checks the settings of a JSON file (already parsed).
 *
 * @throws ConfigurationError listing every problem, by field path.
 */
export function parseChatSettings(value: unknown, source: string): ChatSettings {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigurationError(`${source} must hold a JSON object of chat settings`);
  }
  const parsed = v.safeParse(fileSchema, value, { abortEarly: false });
  if (parsed.success) return parsed.output;
  const problems = parsed.issues.map(describeIssue).join('; ');
  throw new ConfigurationError(`${source} is not a valid chat configuration: ${problems}`);
}

/** Checks an API base URL: absolute http(s), no credentials in it. */
export function checkModelUrl(url: string, source: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigurationError(
      `${source} must be an absolute http(s) URL such as http://127.0.0.1:11434/v1`,
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigurationError(`${source} must be an http or https URL`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new ConfigurationError(
      `${source} must not hold credentials; set the API key in TANDEM_MODEL_API_KEY`,
    );
  }
  if (/(key|token|secret|password)/i.test(parsed.search)) {
    throw new ConfigurationError(
      `${source} must not hold credentials in its query; set the API key in TANDEM_MODEL_API_KEY`,
    );
  }
  return url.replace(/\/+$/, '');
}

/**
 * The complete configuration from settings (the file's, with the flags' over them).
 *
 * @throws ConfigurationError when the model URL or name is missing or the URL is not usable.
 */
export function resolveChatConfig(settings: ChatSettings): ChatConfig {
  if (settings.modelUrl === undefined) {
    throw new ConfigurationError(
      'The chat agent needs the model API base URL: --model-url http://127.0.0.1:11434/v1 (or "modelUrl" in --config)',
    );
  }
  if (settings.model === undefined) {
    throw new ConfigurationError(
      'The chat agent needs the model name: --model NAME (or "model" in --config)',
    );
  }
  const images = settings.images ?? CHAT_DEFAULTS.images;
  return {
    modelUrl: checkModelUrl(settings.modelUrl, 'modelUrl'),
    model: settings.model,
    systemPrompt: settings.systemPrompt === '' ? undefined : settings.systemPrompt,
    temperature: settings.temperature,
    maxTokens: settings.maxTokens,
    name: settings.name ?? CHAT_DEFAULTS.name,
    description: settings.description ?? CHAT_DEFAULTS.description,
    skills: settings.skills?.map(({ examples, ...skill }) =>
      examples === undefined ? skill : { ...skill, examples },
    ) ?? [
      {
        id: 'chat',
        name: 'Chat',
        description: `Answers in a conversation with the model ${settings.model}; each context is its own conversation.`,
        tags: ['chat', 'conversation', 'llm'],
        examples: ['Explain the A2A protocol in two sentences.'],
      },
    ],
    history: {
      maxTurns: settings.history?.maxTurns ?? CHAT_DEFAULTS.history.maxTurns,
      maxTokens: settings.history?.maxTokens ?? CHAT_DEFAULTS.history.maxTokens,
    },
    images,
    stream: settings.stream ?? CHAT_DEFAULTS.stream,
    timeoutMs: settings.timeoutMs ?? CHAT_DEFAULTS.timeoutMs,
  };
}
