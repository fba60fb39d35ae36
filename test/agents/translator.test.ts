import { describe, expect, it } from 'vitest';
import { englishChineseDictionary } from '../../src/agents/english-chinese-dictionary.js';
import {
  splitSentences,
  translateSentence,
  translateText,
  translator,
} from '../../src/agents/translator.js';
import { defineAgent, type AgentContext } from '../../src/server.js';
import {
  artifactUpdates,
  call,
  collect,
  describeEvents,
  handlerFor,
  request,
} from './agent-harness.js';

describe('splitSentences', () => {
  it.each([
    ['Hello.', [['Hello.', 0]]],
    [
      'Good morning! How are you? Fine.',
      [
        ['Good morning!', 0],
        ['How are you?', 0],
        ['Fine.', 0],
      ],
    ],
    [
      'Wait... what?!',
      [
        ['Wait...', 0],
        ['what?!', 0],
      ],
    ],
    [
      'It costs 3.5 yuan. Cheap',
      [
        ['It costs 3.5 yuan.', 0],
        ['Cheap', 0],
      ],
    ],
    [
      'Good morning\nThank you',
      [
        ['Good morning', 1],
        ['Thank you', 0],
      ],
    ],
    [
      '\n\nOne.\n\n\nTwo\n\n',
      [
        ['One.', 3],
        ['Two', 0],
      ],
    ],
    ['  spaced   out  ', [['spaced   out', 0]]],
    ['', []],
    ['  \n \n\t ', []],
  ])('splits %j', (input, expected) => {
    expect(splitSentences(input)).toEqual(
      expected.map(([text, lineBreaks]) => ({ text, lineBreaks })),
    );
  });
});

describe('translateSentence', () => {
  it.each([
    ['Hello, how are you?', '你好，你好吗？'],
    ['Good morning!', '早上好！'],
    ['I love you.', '我爱你。'],
    ['Thank you very much.', '非常感谢。'],
    ['I like my cat.', '我喜欢我的猫。'],
    ['See you tomorrow, my friend!', '明天见，我的朋友！'],
    ['My name is Tom.', '我叫 Tom。'],
    ['What is your name?', '你叫什么名字？'],
    ['HELLO WORLD', '你好世界'],
    ['I have 3 cats and 2 dogs.', '我有 3 猫和 2 狗。'],
    ["I don't have money...", '我没有钱……'],
    ['It’s 3.5 (cheap)', '它是 3.5（便宜）'],
    ['The book', '书'],
    ['I am happy; you are sad: why?', '我是快乐；你是难过：为什么？'],
  ])('translates %j', (english, chinese) => {
    expect(translateSentence(english)).toBe(chinese);
  });

  it('prefers the longest phrase: "thank you very much" over "thank you"', () => {
    expect(translateSentence('thank you')).toBe('谢谢');
    expect(translateSentence('thank you very much')).toBe('非常感谢');
    expect(translateSentence('good')).toBe('好');
    expect(translateSentence('good night')).toBe('晚安');
  });

  it('passes unknown words through unchanged, with their case', () => {
    expect(translateSentence('I love Paris and Zorblax.')).toBe('我爱 Paris 和 Zorblax。');
    expect(translateSentence('Quantum flux')).toBe('Quantum flux');
  });

  it('matches a phrase only across plain spaces', () => {
    expect(translateSentence('thank, you')).toBe('感谢，你');
  });
});

describe('translateText', () => {
  it('joins sentences without spaces and keeps line breaks', () => {
    expect(translateText('Good morning! How are you?\n\nThank you.')).toBe(
      '早上好！你好吗？\n\n谢谢。',
    );
  });
});

describe('english-chinese dictionary', () => {
  it('has a few hundred lower-case entries', () => {
    expect(englishChineseDictionary.size).toBeGreaterThanOrEqual(300);
    for (const key of englishChineseDictionary.keys()) {
      expect(key).toBe(key.toLowerCase().trim());
      expect(key).not.toMatch(/\s{2}/);
    }
  });
});

describe('translator agent', () => {
  it('streams one artifact chunk per sentence after WORKING', async () => {
    const handler = handlerFor(translator);
    const events = await collect(
      await handler.sendStreamingMessage(
        call,
        request('Good morning! How are you? Thank you very much.'),
      ),
    );
    expect(describeEvents(events)).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
      'artifact',
      'artifact+append',
      'artifact+append+last',
      'status:TASK_STATE_COMPLETED',
    ]);
    const updates = artifactUpdates(events);
    expect(new Set(updates.map((u) => u.artifact.artifactId)).size).toBe(1);
    expect(updates[0]?.artifact.name).toBe('translation');
    expect(updates.map((u) => u.artifact.parts.map((p) => p.text))).toEqual([
      ['早上好！'],
      ['你好吗？'],
      ['非常感谢。'],
    ]);
    const taskId = events[0]?.payload.task?.id ?? '';
    const task = await handler.getTask(call, { id: taskId });
    expect(task.artifacts).toHaveLength(1);
    expect(task.artifacts?.[0]?.parts.map((p) => p.text).join('')).toBe(
      '早上好！你好吗？非常感谢。',
    );
  });

  it('sends a single sentence as one first-and-last chunk', async () => {
    const handler = handlerFor(translator);
    const events = await collect(
      await handler.sendStreamingMessage(call, request('I love Paris.')),
    );
    expect(describeEvents(events)).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
      'artifact+last',
      'status:TASK_STATE_COMPLETED',
    ]);
    expect(artifactUpdates(events)[0]?.artifact.parts[0]?.text).toBe('我爱 Paris。');
  });

  it('keeps line breaks inside the chunks', async () => {
    const handler = handlerFor(translator);
    const { task } = await handler.sendMessage(call, request('Good morning\nThank you'));
    expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task?.artifacts?.[0]?.parts.map((p) => p.text)).toEqual(['早上好\n', '谢谢']);
  });

  it('asks for text when there is none, then translates the next message', async () => {
    const handler = handlerFor(translator);
    const first = await handler.sendMessage(call, request('   '));
    expect(first.task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(first.task?.status.message?.parts[0]?.text).toMatch(/What should I translate\?/);
    const taskId = first.task?.id;

    const events = await collect(
      await handler.sendStreamingMessage(call, request('Hello, my friend.', { taskId })),
    );
    expect(describeEvents(events)).toEqual([
      'task:TASK_STATE_WORKING',
      'status:TASK_STATE_WORKING',
      'artifact+last',
      'status:TASK_STATE_COMPLETED',
    ]);
    const task = await handler.getTask(call, { id: taskId ?? '' });
    expect(task.artifacts?.[0]?.parts[0]?.text).toBe('你好，我的朋友。');
  });

  it('asks for text when the message has no text part', async () => {
    const handler = handlerFor(translator);
    const { task } = await handler.sendMessage(call, {
      message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ data: { a: 1 } }] },
    });
    expect(task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it('stops between sentences when the task is canceled', async () => {
    let chunks = 0;
    let chunksAfterAbort = 0;
    const handler = handlerFor(
      defineAgent({
        card: translator.card,
        execute: (ctx) => {
          const count = async (): Promise<void> => {
            chunks++;
            if (ctx.signal.aborted) chunksAfterAbort++;
            if (chunks === 2) await handler.cancelTask(call, { id: ctx.taskId });
          };
          // Counts the chunks the agent emits; everything else goes to the real context.
          const spy = new Proxy(ctx, {
            get(target, property) {
              if (property === 'artifactStream') {
                return (...args: Parameters<AgentContext['artifactStream']>) => {
                  const out = target.artifactStream(...args);
                  return {
                    artifactId: out.artifactId,
                    append: async (content: Parameters<typeof out.append>[0]) => {
                      await count();
                      return out.append(content);
                    },
                    end: (content?: Parameters<typeof out.end>[0]) => out.end(content),
                  };
                };
              }
              const value: unknown = Reflect.get(target, property, target);
              return typeof value === 'function'
                ? (value as (...args: unknown[]) => unknown).bind(target)
                : value;
            },
          });
          return translator.execute(spy);
        },
      }),
    );
    const text = Array.from({ length: 20 }, () => 'Hello.').join(' ');
    const events = await collect(await handler.sendStreamingMessage(call, request(text)));
    expect(describeEvents(events).at(-1)).toBe('status:TASK_STATE_CANCELED');
    await handler.shutdown({ deadlineMs: 1000 });
    expect(chunks).toBe(2);
    expect(chunksAfterAbort).toBe(0);
  });
});

describe('translator card', () => {
  it('describes its skill', () => {
    expect(translator.card.capabilities?.streaming).toBe(true);
    expect(translator.card.skills[0]).toMatchObject({
      id: 'translate-en-zh',
      inputModes: ['text/plain'],
      outputModes: ['text/plain'],
    });
  });
});
