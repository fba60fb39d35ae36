/**
 * The page's state, in one place: what the views show, changed only through {@link update} so
 * that every view sees one consistent state. What a reload should keep (the tab, the
 * conversation, the event timeline, the task filters, the check report) is saved to
 * `sessionStorage` — never credentials, which the page does not hold past the Connect form. The
 * connection, the wire log and push deliveries come back from the backend, which kept them.
 */

import { useEffect, useState } from 'preact/hooks';
import type {
  CheckAreaView,
  CheckResultView,
  ConnectionView,
  FailureView,
  PushDelivery,
  WireEntry,
} from '../../src/inspector/inspector-api.js';
import type { Artifact, Message, TaskState } from '../../src/index.js';

export type TabName = 'connect' | 'card' | 'chat' | 'events' | 'tasks' | 'push' | 'wire' | 'check';

export const TABS: ReadonlyArray<{ name: TabName; label: string }> = [
  { name: 'connect', label: 'Connect' },
  { name: 'card', label: 'Card' },
  { name: 'chat', label: 'Chat' },
  { name: 'events', label: 'Events' },
  { name: 'tasks', label: 'Tasks' },
  { name: 'push', label: 'Push' },
  { name: 'wire', label: 'Wire' },
  { name: 'check', label: 'Check' },
];

/** One state a turn's task went through. */
export interface StateStep {
  readonly state: TaskState;
  readonly time: string;
}

/** One message sent and what came back. */
export interface Turn {
  readonly id: string;
  readonly sent: Message;
  readonly taskId?: string | undefined;
  readonly contextId?: string | undefined;
  readonly states: readonly StateStep[];
  readonly artifacts: readonly Artifact[];
  /** The agent's messages: a direct answer, or status messages. */
  readonly replies: readonly Message[];
  /** Events received for this turn (a streamed turn has several). */
  readonly events: number;
  readonly running: boolean;
  readonly failure?: FailureView;
}

/** One entry of the event timeline. */
export interface TimelineEntry {
  readonly seq: number;
  readonly time: string;
  /** Where it came from: a chat stream, a subscription, or the push receiver. */
  readonly source: 'chat' | 'subscribe' | 'push';
  /** `task`, `statusUpdate`, `artifactUpdate`, `message`, or `resumed` for a resume marker. */
  readonly kind: string;
  readonly eventId: string | null;
  readonly taskId: string | null;
  readonly raw: unknown;
}

export interface CheckState {
  readonly running: boolean;
  /** The areas in report order, with their titles. */
  readonly areas?: readonly CheckAreaView[];
  /** How many checks will run. */
  readonly total?: number;
  readonly results: readonly CheckResultView[];
  readonly summary?: { passed: number; failed: number; skipped: number; warnings: number };
  readonly versions?: readonly string[];
  readonly failure?: FailureView;
}

export interface State {
  readonly tab: TabName;
  readonly theme: 'auto' | 'light' | 'dark';
  readonly connection: ConnectionView | null;
  readonly connecting: boolean;
  /** Text to put in the composer (a skill example clicked on the card). */
  readonly draft?: string | undefined;
  readonly contextId?: string | undefined;
  /** The task that asked for input: the next message continues it. */
  readonly pendingTaskId?: string | undefined;
  readonly turns: readonly Turn[];
  readonly timeline: readonly TimelineEntry[];
  readonly wire: readonly WireEntry[];
  readonly deliveries: readonly PushDelivery[];
  readonly checkAvailable: boolean;
  readonly check: CheckState;
  /** The failure shown in the banner, with what was being done. */
  readonly error: { readonly action: string; readonly failure: FailureView } | null;
}

const SAVED_KEY = 'tandem-inspector';
const THEME_KEY = 'tandem-inspector-theme';

/** What a reload keeps, for the connection it was saved with. */
interface Saved {
  readonly connectionId: string | null;
  readonly tab: TabName;
  readonly contextId?: string | undefined;
  readonly pendingTaskId?: string | undefined;
  readonly turns: readonly Turn[];
  readonly timeline: readonly TimelineEntry[];
  readonly check: CheckState;
}

function loadSaved(): Saved | undefined {
  try {
    const text = sessionStorage.getItem(SAVED_KEY);
    return text === null ? undefined : (JSON.parse(text) as Saved);
  } catch {
    return undefined;
  }
}

/** What the page before this reload saved, read before this page saves anything. */
const savedBeforeLoad = loadSaved();

function loadTheme(): State['theme'] {
  const value = localStorage.getItem(THEME_KEY);
  return value === 'light' || value === 'dark' ? value : 'auto';
}

let state: State = {
  tab: 'connect',
  theme: loadTheme(),
  connection: null,
  connecting: false,
  turns: [],
  timeline: [],
  wire: [],
  deliveries: [],
  checkAvailable: false,
  check: { running: false, results: [] },
  error: null,
};

const listeners = new Set<() => void>();

/** The current state. */
export function getState(): State {
  return state;
}

/** Changes the state and tells every view. */
export function update(change: (current: State) => Partial<State>): void {
  state = { ...state, ...change(state) };
  save();
  for (const listener of listeners) listener();
}

function save(): void {
  const saved: Saved = {
    connectionId: state.connection?.id ?? null,
    tab: state.tab,
    ...(state.contextId === undefined ? {} : { contextId: state.contextId }),
    ...(state.pendingTaskId === undefined ? {} : { pendingTaskId: state.pendingTaskId }),
    turns: state.turns.map((turn) => (turn.running ? { ...turn, running: false } : turn)),
    timeline: state.timeline.slice(-500),
    check: { ...state.check, running: false },
  };
  try {
    sessionStorage.setItem(SAVED_KEY, JSON.stringify(saved));
    localStorage.setItem(THEME_KEY, state.theme);
  } catch {
    // Storage full or disabled: the page works on, only a reload forgets.
  }
}

/**
 * Restores what the last page of this tab saved, when the backend still holds its connection
 * (a restarted inspector starts afresh).
 */
export function restore(connection: ConnectionView | null): void {
  const saved = savedBeforeLoad;
  if (saved === undefined || connection === null || saved.connectionId !== connection.id) {
    update(() => ({ tab: connection === null ? 'connect' : 'card' }));
    return;
  }
  update(() => ({
    tab: saved.tab,
    turns: saved.turns,
    timeline: saved.timeline,
    check: saved.check,
    ...(saved.contextId === undefined ? {} : { contextId: saved.contextId }),
    ...(saved.pendingTaskId === undefined ? {} : { pendingTaskId: saved.pendingTaskId }),
  }));
}

/** A view's slice of the state, re-rendered when it changes. */
export function useStore<T>(select: (current: State) => T): T {
  const [value, setValue] = useState(() => select(state));
  useEffect(() => {
    const listener = (): void => setValue(() => select(state));
    listeners.add(listener);
    listener();
    return () => {
      listeners.delete(listener);
    };
    // The selector is a view's own pure function of the state: subscribing once is enough.
  }, []);
  return value;
}

let timelineSeq = 0;

/** Adds entries to the event timeline. */
export function addToTimeline(entries: ReadonlyArray<Omit<TimelineEntry, 'seq'>>): void {
  if (entries.length === 0) return;
  update((current) => {
    timelineSeq = Math.max(timelineSeq, current.timeline.at(-1)?.seq ?? 0);
    return {
      timeline: [
        ...current.timeline,
        ...entries.map((entry) => ({ ...entry, seq: ++timelineSeq })),
      ].slice(-2000),
    };
  });
}

/** Shows a failure in the banner. */
export function showError(action: string, failure: FailureView): void {
  update(() => ({ error: { action, failure } }));
}
