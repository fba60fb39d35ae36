/**
 * What the Chat view does: send the composer's parts (streamed when the agent streams, chunk by
 * chunk into the turn and the event timeline), continue the task that asked for input, cancel
 * the running task, and start a new context.
 */

import type { ComposerPart, SendAnswer, StreamLine } from '../../src/inspector/inspector-api.js';
import type { Task } from '../../src/index.js';
import { call, failureOf, stream } from './api.js';
import { addToTimeline, getState, update, type Turn } from './store.js';
import { applyEvent, isInterrupted, kindOf, taskIdOf } from './turns.js';

let running: AbortController | undefined;

function changeTurn(id: string, change: (turn: Turn) => Turn): void {
  update((state) => ({ turns: state.turns.map((turn) => (turn.id === id ? change(turn) : turn)) }));
}

/** After a turn: remember its context, and its task when it waits for input. */
function settle(id: string): void {
  update((state) => {
    const turn = state.turns.find((t) => t.id === id);
    if (turn === undefined) return {};
    const last = turn.states.at(-1)?.state;
    return {
      contextId: turn.contextId ?? state.contextId,
      pendingTaskId: isInterrupted(last) ? turn.taskId : undefined,
      turns: state.turns.map((t) => (t.id === id ? { ...t, running: false } : t)),
    };
  });
}

/** Sends one message. */
export async function sendTurn(parts: ComposerPart[], streamed: boolean): Promise<void> {
  const { connection, contextId, pendingTaskId } = getState();
  if (connection === null) return;
  const id = crypto.randomUUID();
  const turn: Turn = {
    id,
    sent: { messageId: '', role: 'ROLE_USER', parts: [] },
    states: [],
    artifacts: [],
    replies: [],
    events: 0,
    running: true,
  };
  update((state) => ({ turns: [...state.turns, turn], error: null }));
  const body = {
    connectionId: connection.id,
    parts,
    stream: streamed,
    ...(contextId === undefined ? {} : { contextId }),
    ...(pendingTaskId === undefined ? {} : { taskId: pendingTaskId }),
  };
  running = new AbortController();
  try {
    if (!streamed) {
      const answer = await call<SendAnswer>('send', body);
      const time = new Date().toISOString();
      changeTurn(id, (t) => {
        let next: Turn = { ...t, sent: answer.sent };
        if (answer.task !== undefined) next = applyEvent(next, { task: answer.task }, time);
        if (answer.message !== undefined)
          next = applyEvent(next, { message: answer.message }, time);
        return next;
      });
      return;
    }
    for await (const line of stream<StreamLine>('send', body, running.signal)) {
      switch (line.kind) {
        case 'sent':
          changeTurn(id, (t) => ({ ...t, sent: line.message }));
          break;
        case 'event':
          changeTurn(id, (t) => applyEvent(t, line.payload, line.time));
          addToTimeline([
            {
              time: line.time,
              source: 'chat',
              kind: kindOf(line.payload),
              eventId: line.eventId,
              taskId: taskIdOf(line.payload),
              raw: line.payload,
            },
          ]);
          break;
        case 'resumed':
          addToTimeline([resumedEntry(line)]);
          break;
        case 'error':
          changeTurn(id, (t) => ({ ...t, failure: line.failure }));
          break;
        case 'end':
          break;
      }
    }
  } catch (error) {
    if (running?.signal.aborted !== true)
      changeTurn(id, (t) => ({ ...t, failure: failureOf(error) }));
  } finally {
    running = undefined;
    settle(id);
  }
}

/** The timeline entry of a resumed stream. */
export function resumedEntry(line: Extract<StreamLine, { kind: 'resumed' }>) {
  return {
    time: line.time,
    source: 'chat' as const,
    kind: 'resumed',
    eventId: line.lastEventId,
    taskId: line.taskId,
    raw: { resumedAfter: line.lastEventId, taskId: line.taskId },
  };
}

/** Cancels the task of the running (or waiting) turn. */
export async function cancelTurn(turn: Turn): Promise<void> {
  const { connection } = getState();
  if (connection === null || turn.taskId === undefined) return;
  try {
    const task = await call<Task>('tasks/cancel', { connectionId: connection.id, id: turn.taskId });
    changeTurn(turn.id, (t) => applyEvent(t, { task }, new Date().toISOString()));
    update((state) => (state.pendingTaskId === turn.taskId ? { pendingTaskId: undefined } : {}));
  } catch (error) {
    changeTurn(turn.id, (t) => ({ ...t, failure: failureOf(error) }));
  }
}

/** Starts a new context: the next message opens a new conversation. */
export function newContext(): void {
  running?.abort();
  update(() => ({ contextId: undefined, pendingTaskId: undefined, turns: [] }));
}
