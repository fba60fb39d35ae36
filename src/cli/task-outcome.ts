/**
 * How `send`, `stream` and `subscribe` end once the task has settled: the exit code of its state,
 * one line on stderr when it failed, and on an interrupted task the command that answers it.
 */

import type { TaskState } from '../index.js';
import { exitCodeOfState } from './errors-to-exit.js';
import { ExitCode } from './exit-code.js';
import { stateLabel } from './render-task.js';
import type { Terminal } from './terminal.js';

/** Where the task stands when the command ends. */
export interface TaskOutcome {
  readonly url: string;
  readonly taskId: string | undefined;
  readonly state: TaskState;
}

function failureLine(state: TaskState, taskId: string | undefined): string {
  const task = taskId === undefined ? '' : ` (task ${taskId})`;
  switch (state) {
    case 'TASK_STATE_FAILED':
      return `the task failed${task}`;
    case 'TASK_STATE_REJECTED':
      return `the agent rejected the task${task}`;
    default:
      return `the task was ${stateLabel(state)}${task}`;
  }
}

/** Reports the outcome on stderr where needed and returns the exit code. */
export function reportOutcome(terminal: Terminal, outcome: TaskOutcome): number {
  const { url, taskId, state } = outcome;
  const code = exitCodeOfState(state);
  if (code !== ExitCode.Success) {
    terminal.error(`tandem: ${failureLine(state, taskId)}`);
    return code;
  }
  const waiting =
    state === 'TASK_STATE_INPUT_REQUIRED'
      ? 'input'
      : state === 'TASK_STATE_AUTH_REQUIRED'
        ? 'authorization'
        : undefined;
  if (waiting !== undefined && taskId !== undefined && !terminal.json) {
    terminal.error(
      terminal.style.dim(
        `(the agent is waiting for ${waiting}; answer with: tandem send ${url} --task ${taskId} <text>)`,
      ),
    );
  }
  return code;
}
