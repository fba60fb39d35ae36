/**
 * The translator demo agent: English → Simplified Chinese from a built-in dictionary, with no
 * network. It shows artifact streaming: the translation arrives sentence by sentence as chunks of
 * one artifact, and a cancel stops it between two sentences.
 *
 * The translation is word by word (longest dictionary phrase first), which is enough for greetings
 * and short sentences and honest about what it is: unknown words pass through unchanged.
 */

import { textPart } from '../index.js';
import { defineAgent, type AgentDefinition } from '../server.js';
import { englishChineseDictionary } from './english-chinese-dictionary.js';

/** One sentence of the input and the line breaks that followed it. */
export interface Sentence {
  /** The sentence, trimmed, with its final punctuation. */
  readonly text: string;
  /** Line breaks between this sentence and the next, kept in the translation. */
  readonly lineBreaks: number;
}

const SENTENCE_END = '.!?';

/**
 * Splits text into sentences: after a run of `.`, `!` or `?` that is followed by whitespace or the
 * end of the text (so "3.5" and "e.g" stay whole), and at every line break. Blank lines make no
 * sentence; their line breaks go to the sentence before.
 */
export function splitSentences(input: string): Sentence[] {
  const sentences: { text: string; lineBreaks: number }[] = [];
  let start = 0;
  const take = (end: number): void => {
    const text = input.slice(start, end).trim();
    if (text !== '') sentences.push({ text, lineBreaks: 0 });
  };
  for (let i = 0; i < input.length; i++) {
    const ch = input[i] as string;
    if (ch === '\n') {
      take(i);
      start = i + 1;
      const last = sentences[sentences.length - 1];
      if (last !== undefined) last.lineBreaks++;
    } else if (SENTENCE_END.includes(ch)) {
      let end = i + 1;
      while (end < input.length && SENTENCE_END.includes(input[end] as string)) end++;
      if (end === input.length || /\s/.test(input[end] as string)) {
        take(end);
        start = end;
      }
      i = end - 1;
    }
  }
  take(input.length);
  const last = sentences[sentences.length - 1];
  if (last !== undefined) last.lineBreaks = 0;
  return sentences;
}

const PUNCTUATION: Record<string, string> = {
  ',': '，',
  '.': '。',
  '!': '！',
  '?': '？',
  ':': '：',
  ';': '；',
  '(': '（',
  ')': '）',
  '...': '……',
  '…': '……',
};

/** Words, numbers (with their decimal or thousands separators), whitespace, anything else. */
const TOKEN = /([A-Za-z]+(?:['’][A-Za-z]+)*)|(\d+(?:[.,:]\d+)*)|(\s+)|(\.\.\.|.)/gsu;
const HAN = /\p{Script=Han}/u;
const CJK_PUNCTUATION = /[\u3000-\u303f\uff00-\uffef…]/u;

const MAX_PHRASE_WORDS = Math.max(
  ...[...englishChineseDictionary.keys()].map((key) => key.split(' ').length),
);

type Token = { readonly kind: 'word' | 'space' | 'other'; readonly text: string };

function tokenize(sentence: string): Token[] {
  const tokens: Token[] = [];
  for (const match of sentence.matchAll(TOKEN)) {
    const [text, word, , space] = match;
    const kind = word !== undefined ? 'word' : space !== undefined ? 'space' : 'other';
    tokens.push({ kind, text });
  }
  return tokens;
}

function lookUp(word: string): string | undefined {
  const key = word.toLowerCase();
  const direct = englishChineseDictionary.get(key);
  if (direct !== undefined || key.length <= 3 || !key.endsWith('s')) return direct;
  // A plural of a known noun: "cats", "boxes", "cities".
  if (key.endsWith('ies')) return englishChineseDictionary.get(`${key.slice(0, -3)}y`);
  return (
    englishChineseDictionary.get(key.slice(0, -1)) ??
    (key.endsWith('es') ? englishChineseDictionary.get(key.slice(0, -2)) : undefined)
  );
}

/**
 * The longest dictionary phrase starting at token `index`: its translation and how many tokens it
 * covers. Words of a phrase must be separated by plain spaces.
 */
function longestMatch(
  tokens: readonly Token[],
  index: number,
): { translation: string; length: number } | undefined {
  const words: string[] = [];
  const ends: number[] = [];
  for (let i = index; i < tokens.length && words.length < MAX_PHRASE_WORDS; i += 2) {
    const token = tokens[i] as Token;
    if (token.kind !== 'word') break;
    words.push(token.text.replaceAll('’', "'").toLowerCase());
    ends.push(i + 1);
    const gap = tokens[i + 1];
    if (gap === undefined || gap.kind !== 'space' || gap.text !== ' ') break;
  }
  for (let n = words.length; n > 1; n--) {
    const translation = englishChineseDictionary.get(words.slice(0, n).join(' '));
    if (translation !== undefined) return { translation, length: (ends[n - 1] as number) - index };
  }
  const single = lookUp(words[0] ?? '');
  return single === undefined ? undefined : { translation: single, length: 1 };
}

function isCjk(ch: string): boolean {
  return HAN.test(ch) || CJK_PUNCTUATION.test(ch);
}

/** Whether a space stays between two pieces of output: not next to Chinese on both sides. */
function keepsSpace(before: string, after: string): boolean {
  if (CJK_PUNCTUATION.test(before) || CJK_PUNCTUATION.test(after)) return false;
  return !(isCjk(before) && isCjk(after));
}

/**
 * Translates one sentence. Phrases before words, longest first; unknown words, numbers and
 * symbols pass through unchanged; punctuation becomes its full-width Chinese form. Spaces are kept
 * only between pieces that are not both Chinese ("我爱 Paris", but "我爱你").
 */
export function translateSentence(sentence: string): string {
  const tokens = tokenize(sentence);
  let out = '';
  let pendingSpace = false;
  const emit = (piece: string): void => {
    if (piece === '') return;
    if (pendingSpace && out !== '' && keepsSpace(out.slice(-1), piece.slice(0, 1))) out += ' ';
    pendingSpace = false;
    out += piece;
  };
  for (let i = 0; i < tokens.length;) {
    const token = tokens[i] as Token;
    if (token.kind === 'space') {
      pendingSpace = true;
      i++;
    } else if (token.kind === 'word') {
      const match = longestMatch(tokens, i);
      emit(match?.translation ?? token.text);
      i += match?.length ?? 1;
    } else {
      emit(PUNCTUATION[token.text] ?? token.text);
      i++;
    }
  }
  return out;
}

/** Translates text, keeping its line breaks; sentences on one line are joined without space. */
export function translateText(text: string): string {
  return splitSentences(text)
    .map((sentence) => translateSentence(sentence.text) + '\n'.repeat(sentence.lineBreaks))
    .join('');
}

const EXAMPLES = ['Good morning! How are you?', 'Thank you very much.', 'I love my cat.'];

export const translator: AgentDefinition = defineAgent({
  card: {
    name: 'Translator',
    description:
      'Translates English into Simplified Chinese with a built-in offline dictionary of common ' +
      'words and phrases (greetings, numbers, days, everyday nouns, verbs and adjectives). ' +
      'Streams the translation sentence by sentence as chunks of one artifact; unknown words ' +
      'pass through unchanged. Asks for text (input required) when the message has none.',
    version: '1.0.0',
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    capabilities: { streaming: true },
    skills: [
      {
        id: 'translate-en-zh',
        name: 'English to Simplified Chinese',
        description:
          'Word-by-word translation with phrase matching (longest phrase first), Chinese ' +
          'punctuation, and unknown words kept as they are.',
        tags: ['translation', 'english', 'chinese', 'offline', 'streaming'],
        examples: EXAMPLES,
        inputModes: ['text/plain'],
        outputModes: ['text/plain'],
      },
    ],
  },
  async execute(ctx) {
    const sentences = splitSentences(ctx.text);
    if (sentences.length === 0) {
      return ctx.inputRequired(
        `What should I translate? Send English text, for example "${EXAMPLES[0]}".`,
      );
    }
    await ctx.working();
    const out = ctx.artifactStream({ name: 'translation' });
    for (const sentence of sentences) {
      if (ctx.signal.aborted) return;
      await out.append(
        textPart(translateSentence(sentence.text) + '\n'.repeat(sentence.lineBreaks)),
      );
    }
    await out.end();
    return ctx.complete();
  },
});
