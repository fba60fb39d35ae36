/**
 * Chat: the conversation, turn after turn — what was sent, each state the task went through,
 * the artifacts as they grow, the agent's messages — with the composer below. A task that asks
 * for input is continued by the next message; "New context" starts a fresh conversation.
 */

import type { JSX } from 'preact';
import { cancelTurn, newContext } from '../chat-actions.js';
import { useStore, type Turn } from '../store.js';
import { isTerminal, stateLabel } from '../turns.js';
import { Composer } from './composer.js';
import { ErrorNote } from './error-banner.js';
import { PartView } from './part-view.js';

function TurnView(props: { turn: Turn }): JSX.Element {
  const { turn } = props;
  const state = turn.states.at(-1)?.state;
  const cancelable = turn.taskId !== undefined && state !== undefined && !isTerminal(state);
  return (
    <article class="turn" data-testid="turn" aria-busy={turn.running ? 'true' : 'false'}>
      <div class="bubble user">
        {turn.sent.parts.map((part, index) => (
          <PartView part={part} key={index} />
        ))}
      </div>
      <div class="bubble agent">
        {turn.taskId !== undefined && (
          <p class="muted">
            Task <code data-testid="task-id">{turn.taskId}</code>
          </p>
        )}
        {turn.states.length > 0 && (
          <ol class="states" aria-label="Task states">
            {turn.states.map((step, index) => (
              <li
                key={index}
                class={`state state-${step.state.replace(/^TASK_STATE_/, '').toLowerCase()}`}
              >
                {stateLabel(step.state)}
              </li>
            ))}
          </ol>
        )}
        {turn.artifacts.map((artifact) => (
          <section
            class="artifact"
            key={artifact.artifactId}
            aria-label={`Artifact ${artifact.name ?? artifact.artifactId}`}
          >
            {artifact.name !== undefined && <h4>{artifact.name}</h4>}
            {artifact.parts.map((part, index) => (
              <PartView part={part} key={index} />
            ))}
          </section>
        ))}
        {turn.replies.map((reply) => (
          <div class="reply" key={reply.messageId} data-testid="reply">
            {reply.parts.map((part, index) => (
              <PartView part={part} key={index} />
            ))}
          </div>
        ))}
        {turn.running && turn.events === 0 && <p class="muted">Waiting for the agent…</p>}
        {turn.events > 1 && <p class="muted">{turn.events} events</p>}
        {turn.failure !== undefined && <ErrorNote failure={turn.failure} />}
        {cancelable && (
          <button type="button" onClick={() => void cancelTurn(turn)}>
            Cancel task
          </button>
        )}
      </div>
    </article>
  );
}

export function ChatView(): JSX.Element {
  const connection = useStore((s) => s.connection);
  const turns = useStore((s) => s.turns);
  const contextId = useStore((s) => s.contextId);
  if (connection === null) return <p class="view empty">Connect to an agent first.</p>;
  const running = turns.some((turn) => turn.running);
  return (
    <div class="view chat-view">
      <div class="row">
        <p class="muted">
          {contextId === undefined ? (
            'New conversation'
          ) : (
            <>
              Context <code>{contextId}</code>
            </>
          )}
        </p>
        <button type="button" onClick={newContext}>
          New context
        </button>
      </div>
      <div class="turns" aria-live="polite">
        {turns.map((turn) => (
          <TurnView turn={turn} key={turn.id} />
        ))}
      </div>
      <Composer
        streaming={connection.card?.capabilities?.streaming === true}
        disabled={running || connection.selected === undefined}
      />
    </div>
  );
}
