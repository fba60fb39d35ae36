import { describe, expect, it } from 'vitest';
import {
  CHAT_DEFAULTS,
  parseChatSettings,
  resolveChatConfig,
} from '../../../src/agents/chat/chat-config.js';

describe('chat configuration', () => {
  it('reports every problem of a file with its path', () => {
    const error = (() => {
      try {
        parseChatSettings(
          {
            apiKey: 'sk-x',
            temperature: 3,
            history: { maxTurns: 1.5, foo: 1 },
            skills: [{ id: 'a' }],
          },
          'chat.json',
        );
      } catch (caught) {
        return caught as Error;
      }
      return undefined;
    })();
    expect(error?.name).toBe('ConfigurationError');
    const message = error?.message ?? '';
    expect(message).toMatch(/^chat\.json is not a valid chat configuration: /);
    expect(message).toContain(
      'apiKey: the API key is read from the environment variable TANDEM_MODEL_API_KEY only',
    );
    expect(message).not.toContain('sk-x');
    expect(message).toContain('temperature: must be between 0 and 2');
    expect(message).toContain('history.maxTurns: must be an integer');
    expect(message).toContain('history.foo: unknown setting');
    expect(message).toContain('skills.0.name: is required');
  });

  it('refuses a file that is not an object', () => {
    expect(() => parseChatSettings([], 'chat.json')).toThrow(/chat\.json must hold a JSON object/);
  });

  it('fills defaults and requires the model URL and name', () => {
    expect(() => resolveChatConfig({ model: 'm' })).toThrow(/--model-url/);
    expect(() => resolveChatConfig({ modelUrl: 'http://127.0.0.1:1/v1' })).toThrow(/--model NAME/);
    expect(() => resolveChatConfig({ modelUrl: 'ftp://x', model: 'm' })).toThrow(/http or https/);
    expect(() => resolveChatConfig({ modelUrl: 'http://x/v1?api-key=1', model: 'm' })).toThrow(
      /query/,
    );
    expect(() => resolveChatConfig({ modelUrl: 'http://u:p@x/v1', model: 'm' })).toThrow(
      /TANDEM_MODEL_API_KEY/,
    );
    const config = resolveChatConfig({ modelUrl: 'http://127.0.0.1:1/v1/', model: 'm' });
    expect(config.modelUrl).toBe('http://127.0.0.1:1/v1');
    expect(config.history).toEqual(CHAT_DEFAULTS.history);
    expect(config.skills[0]?.id).toBe('chat');
  });
});
