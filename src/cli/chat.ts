/**
 * `tandem chat <url>`: an interactive, multi-turn session. Every line is sent in the same context;
 * when the agent asks for input, the next line continues that task. Answers stream in as they are
 * produced. Ctrl-C cancels the running task on the server and returns to the prompt; Ctrl-C at the
 * prompt, a second Ctrl-C within two seconds, or the end of input (Ctrl-D) ends the session.
 *
 * Works the same with piped stdin: lines are read one at a time, each after the previous answer,
 * and the transcript (prompt, line, answer) goes to stdout without colours or spinner.
 */

import { createInterface, type Interface } from 'node:readline';
import { isTask, type A2AClient, type Conversation } from '../client.js';
import { failureOf } from './errors-to-exit.js';
import { ExitCode } from './exit-code.js';
import { onInterrupt } from './interrupts.js';
import { EventRenderer } from './render-events.js';
import { writeParts } from './render-task.js';
import { runCommand } from './run-command.js';
import { SHARED_HELP, SHARED_OPTIONS } from './shared-options.js';
import type { Terminal } from './terminal.js';

const OPTIONS = { ...SHARED_OPTIONS, context: { type: 'string' } } as const;

const HELP = `Usage: tandem chat <url> [options]

Talks with the agent at <url>, one message per line, keeping the conversation's context. When
the agent asks for input, the next line answers it. Answers stream in as they are produced (or
arrive whole from an agent that does not stream).

Keys: Ctrl-C cancels the running task (on the server) and returns to the prompt; Ctrl-C at the
prompt, or twice within 2 s, quits; Ctrl-D (end of input) quits after the current answer.

Options:
  --context <id>          Continue an earlier conversation

${SHARED_HELP}

With --json, prints each StreamResponse as NDJSON and no prompts. Works with piped stdin.

Exit codes: 0 when the session ends, 2 usage error, 3 the agent could not be reached.`;

/** A second Ctrl-C within this time of the first quits instead of waiting for the cancel. */
const DOUBLE_PRESS_MS = 2_000;
/** How long the stream may take to report a cancel the agent confirmed before it is cut. */
const CANCEL_GRACE_MS = 3_000;

/** The message being answered. */
interface Turn {
  readonly controller: AbortController;
  readonly renderer: EventRenderer;
  canceling: boolean;
}

/** One chat session: the prompt loop, the running turn and Ctrl-C. */
class ChatSession {
  private readonly conversation: Conversation;
  private readonly lines: Interface;
  private readonly tty: boolean;
  private running: Turn | undefined;
  private lastInterrupt = 0;
  private quitting = false;

  constructor(
    private readonly client: A2AClient,
    private readonly terminal: Terminal,
    private readonly url: string,
    contextId: string | undefined,
  ) {
    this.conversation = client.conversation(contextId === undefined ? {} : { contextId });
    this.tty = process.stdin.isTTY === true && process.stdout.isTTY === true && !terminal.json;
    this.lines = createInterface({
      input: process.stdin,
      ...(this.tty ? { output: process.stdout, terminal: true } : { terminal: false }),
    });
    this.lines.setPrompt(terminal.style.bold('you> '));
  }

  async run(): Promise<number> {
    const { terminal } = this;
    if (!terminal.json) {
      terminal.error(
        terminal.style.dim(
          `Chatting with ${this.client.card.name}. Ctrl-C cancels a running task; Ctrl-C at the prompt or Ctrl-D quits.`,
        ),
      );
    }
    const stopListening = onInterrupt(() => this.interrupt());
    // On a terminal readline reads Ctrl-C as a key and reports it here instead of as a signal.
    this.lines.on('SIGINT', () => this.interrupt());
    try {
      this.prompt();
      for await (const line of this.lines) {
        if (!this.tty && !terminal.json) terminal.write(`${line}\n`);
        const text = line.trim();
        if (text !== '') await this.turn(text);
        if (this.quitting) break;
        this.prompt();
      }
    } finally {
      stopListening();
      this.lines.close();
    }
    // readline's prompt is not written through the terminal, which thus cannot see it is open.
    if (this.tty) terminal.write('\n');
    terminal.endLine();
    const contextId = this.conversation.contextId;
    if (contextId !== undefined && !terminal.json) {
      terminal.error(
        terminal.style.dim(`(continue with: tandem chat ${this.url} --context ${contextId})`),
      );
    }
    return ExitCode.Success;
  }

  private prompt(): void {
    if (this.terminal.json) return;
    this.terminal.endLine();
    if (this.tty) this.lines.prompt();
    else this.terminal.write('you> ');
  }

  private async turn(text: string): Promise<void> {
    const { terminal } = this;
    const turn: Turn = {
      controller: new AbortController(),
      renderer: new EventRenderer(terminal, 'chat'),
      canceling: false,
    };
    this.running = turn;
    terminal.activity('waiting for the agent…');
    try {
      if (this.client.card.capabilities.streaming === true) await this.streamAnswer(turn, text);
      else await this.awaitAnswer(turn, text);
    } catch (error) {
      if (!turn.controller.signal.aborted) terminal.error(`tandem: ${failureOf(error).message}`);
    } finally {
      turn.renderer.finish();
      this.running = undefined;
    }
  }

  private async streamAnswer(turn: Turn, text: string): Promise<void> {
    const stream = this.conversation.stream(text, { signal: turn.controller.signal });
    for await (const event of stream) {
      if (this.terminal.json) this.terminal.jsonLine(event);
      turn.renderer.render(event);
    }
  }

  /** For an agent that does not stream: one `SendMessage`, its answer rendered as a whole. */
  private async awaitAnswer(turn: Turn, text: string): Promise<void> {
    const { terminal } = this;
    const answer = await this.conversation.send(text, { signal: turn.controller.signal });
    if (!isTask(answer)) {
      if (terminal.json) terminal.jsonLine({ message: answer });
      turn.renderer.render({ message: answer });
      return;
    }
    if (terminal.json) terminal.jsonLine({ task: answer });
    else for (const artifact of answer.artifacts ?? []) writeParts(terminal, artifact.parts);
    const { id: taskId, contextId = '', status } = answer;
    turn.renderer.render({ statusUpdate: { taskId, contextId, status } });
  }

  private interrupt(): void {
    const turn = this.running;
    const now = Date.now();
    if (turn === undefined || now - this.lastInterrupt < DOUBLE_PRESS_MS) {
      this.quit();
      return;
    }
    this.lastInterrupt = now;
    this.cancel(turn);
  }

  private cancel(turn: Turn): void {
    const { terminal } = this;
    const taskId = turn.renderer.taskId;
    if (taskId === undefined || turn.renderer.settled || turn.canceling) {
      // Nothing on the server to cancel (yet): stop waiting for this answer.
      turn.controller.abort();
      return;
    }
    turn.canceling = true;
    terminal.interruptNotice(
      terminal.style.dim(`canceling task ${taskId}… (Ctrl-C again to quit)`),
    );
    this.client.cancelTask({ id: taskId }).then(
      (task) => {
        // The stream normally ends with the CANCELED event; cut it if it does not come.
        setTimeout(() => {
          if (this.running !== turn) return;
          turn.renderer.renderCanceled(task);
          turn.controller.abort();
        }, CANCEL_GRACE_MS).unref();
      },
      (error: unknown) => {
        turn.canceling = false;
        terminal.error(`tandem: the task could not be canceled: ${failureOf(error).message}`);
      },
    );
  }

  private quit(): void {
    this.quitting = true;
    this.running?.controller.abort();
    this.lines.close();
  }
}

/** Runs the command; resolves with the exit code once the session ends. */
export function run(args: string[]): Promise<number> {
  const spec = { name: 'chat', help: HELP, options: OPTIONS };
  return runCommand(spec, args, async ({ values, terminal, url, connect }) => {
    const client = await connect();
    return new ChatSession(client, terminal, url, values.context).run();
  });
}
