/**
 * Live human output of a stream of `StreamResponse` events (`stream`, `subscribe`, `chat`): status
 * changes as lines, artifact text appended in place as its chunks arrive (the line is closed at the
 * artifact's last chunk, or when something else must be printed), data and file parts as soon as
 * they arrive, and a spinner on stderr while the agent works. The renderer also remembers what the
 * command needs afterwards: the task id and the last state.
 */

import type {
  Message,
  StreamResponse,
  Task,
  TaskArtifactUpdateEvent,
  TaskState,
  TaskStatus,
} from '../index.js';
import { messageText, stateLabel, styledState, writeParts } from './render-task.js';
import type { Terminal } from './terminal.js';

/**
 * `stream` shows every state change and the task's ids; `chat` shows only what the agent says
 * (its artifacts, its questions, progress messages) and the end of a task that did not complete.
 */
export type RenderMode = 'stream' | 'chat';

const SYMBOLS: Partial<Record<TaskState, string>> = {
  TASK_STATE_COMPLETED: '✓',
  TASK_STATE_FAILED: '✗',
  TASK_STATE_REJECTED: '✗',
  TASK_STATE_CANCELED: '✗',
  TASK_STATE_INPUT_REQUIRED: '?',
  TASK_STATE_AUTH_REQUIRED: '?',
};

function isActive(state: TaskState): boolean {
  return state === 'TASK_STATE_SUBMITTED' || state === 'TASK_STATE_WORKING';
}

/** Renders one stream's events; create one per stream. */
export class EventRenderer {
  /** The task the stream is about, once an event named it. */
  taskId: string | undefined;
  /** The last state seen, if the stream is about a task. */
  lastState: TaskState | undefined;
  /** The agent answered with a direct message instead of a task. */
  answeredWithMessage = false;
  private currentArtifact: string | undefined;

  constructor(
    private readonly terminal: Terminal,
    private readonly mode: RenderMode,
  ) {}

  /** Whether the stream reached a state in which the task waits for nothing more from the agent. */
  get settled(): boolean {
    return this.answeredWithMessage || (this.lastState !== undefined && !isActive(this.lastState));
  }

  /** Notes what the event says about the task and renders it (not in `--json` mode). */
  render(event: StreamResponse): void {
    const previous = this.lastState;
    this.track(event);
    if (this.terminal.json) return;
    if (event.task !== undefined) this.onTask(event.task, previous);
    else if (event.statusUpdate !== undefined) this.onStatus(event.statusUpdate.status, previous);
    else if (event.artifactUpdate !== undefined) this.onArtifact(event.artifactUpdate);
    else if (event.message !== undefined) this.onMessage(event.message);
  }

  private track(event: StreamResponse): void {
    if (event.task !== undefined) {
      this.taskId = event.task.id;
      this.lastState = event.task.status.state;
    } else if (event.statusUpdate !== undefined) {
      this.taskId ??= event.statusUpdate.taskId;
      this.lastState = event.statusUpdate.status.state;
    } else if (event.artifactUpdate !== undefined) {
      this.taskId ??= event.artifactUpdate.taskId;
    } else if (event.message !== undefined) {
      this.answeredWithMessage = true;
    }
  }

  /** Prints the outcome of a cancel the stream did not report (it was cut short). */
  renderCanceled(task: Task): void {
    if (this.settled) return;
    this.render({
      statusUpdate: { taskId: task.id, contextId: task.contextId ?? '', status: task.status },
    });
  }

  /** Closes the open line and stops the spinner. */
  finish(): void {
    this.terminal.activity(undefined);
    this.terminal.endLine();
    this.currentArtifact = undefined;
  }

  private onTask(task: Task, previous: TaskState | undefined): void {
    if (this.mode === 'chat') {
      // A continued task repeats the artifacts the chat has already shown.
      this.onStatus(task.status, previous);
      return;
    }
    const context = task.contextId === undefined ? '' : `  context ${task.contextId}`;
    this.terminal.line(this.terminal.style.dim(`task ${task.id}${context}`));
    this.onStatus(task.status, previous);
    // The artifacts so far (a subscription joins a running task): chunks that follow continue
    // them in place.
    const { id: taskId, contextId = '' } = task;
    for (const artifact of task.artifacts ?? []) this.onArtifact({ taskId, contextId, artifact });
  }

  private onStatus(status: TaskStatus, previous: TaskState | undefined): void {
    const { state, message } = status;
    const text = messageText(message);
    const nonText = message?.parts.filter((part) => part.text === undefined) ?? [];
    if (state !== previous || text !== '' || nonText.length > 0) {
      this.closeArtifactLine();
      const line =
        this.mode === 'stream' || !isActive(state) || text !== ''
          ? this.statusLine(state, text)
          : '';
      if (line !== '') this.terminal.line(line);
      writeParts(this.terminal, nonText);
    }
    this.terminal.activity(isActive(state) ? 'working…' : undefined);
  }

  private statusLine(state: TaskState, text: string): string {
    const { style } = this.terminal;
    if (this.mode === 'chat') {
      switch (state) {
        case 'TASK_STATE_COMPLETED':
          return text;
        case 'TASK_STATE_INPUT_REQUIRED':
        case 'TASK_STATE_AUTH_REQUIRED':
          return style.yellow(text === '' ? `(${stateLabel(state)})` : text);
        case 'TASK_STATE_SUBMITTED':
        case 'TASK_STATE_WORKING':
          return style.dim(text);
        default:
          break;
      }
    }
    const symbol = SYMBOLS[state] ?? '»';
    const label = `${symbol} ${styledState(state, style)}`;
    return text === '' ? label : `${label}: ${text}`;
  }

  private onArtifact(update: TaskArtifactUpdateEvent): void {
    const { artifact, lastChunk } = update;
    if (this.currentArtifact !== artifact.artifactId) this.closeArtifactLine();
    this.currentArtifact = artifact.artifactId;
    for (const part of artifact.parts) {
      if (part.text !== undefined) this.terminal.write(part.text);
      else writeParts(this.terminal, [part]);
    }
    // ProtoJSON drops `lastChunk: false`, so a first chunk looks like a whole artifact: keep the
    // line open until the last chunk or until something else is printed.
    if (lastChunk === true) this.closeArtifactLine();
  }

  private onMessage(message: Message): void {
    this.terminal.activity(undefined);
    this.closeArtifactLine();
    writeParts(this.terminal, message.parts);
  }

  private closeArtifactLine(): void {
    this.terminal.endLine();
    this.currentArtifact = undefined;
  }
}
