/**
 * Where every client command writes: stdout for the answer, stderr for diagnostics. Colours and
 * the spinner are decorations of a terminal, so both are off unless the stream is a TTY, and
 * colours also obey `NO_COLOR` and `--no-color` (`FORCE_COLOR` turns them on for a pipe).
 * `--json` turns both off: scripts read stdout and nothing else lands there.
 */

/** The ANSI styles the human output uses; each is the identity when colours are off. */
export interface Style {
  readonly bold: (text: string) => string;
  readonly dim: (text: string) => string;
  readonly red: (text: string) => string;
  readonly green: (text: string) => string;
  readonly yellow: (text: string) => string;
  readonly cyan: (text: string) => string;
}

function sgr(open: number, close: number): (text: string) => string {
  return (text) => (text === '' ? text : `\u001b[${open}m${text}\u001b[${close}m`);
}

const plain = (text: string): string => text;

/** The styles, coloured or not. */
export function createStyle(enabled: boolean): Style {
  if (!enabled) {
    return { bold: plain, dim: plain, red: plain, green: plain, yellow: plain, cyan: plain };
  }
  return {
    bold: sgr(1, 22),
    dim: sgr(2, 22),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    cyan: sgr(36, 39),
  };
}

/** The part of a writable stream the terminal uses (`process.stdout` and `process.stderr`). */
export interface OutputStream {
  write(text: string): boolean;
  readonly isTTY?: boolean;
}

/** How a command's output looks. */
export interface TerminalSettings {
  /** Machine output only: no colours, no spinner. */
  readonly json: boolean;
  /** `--no-color` was given. */
  readonly noColor: boolean;
}

/** Whether to colour output for `stream`, from the settings and the environment. */
export function colorEnabled(
  settings: TerminalSettings,
  stream: OutputStream,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  if (settings.json || settings.noColor) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') {
    return true;
  }
  return stream.isTTY === true;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const FRAME_MS = 80;
const CLEAR_LINE = '\r\u001b[K';

/**
 * The output of one command. Tracks whether stdout sits at the start of a line so that text
 * streamed in place can be closed with a newline before anything else is printed, and keeps the
 * spinner (on stderr) off while a stdout line is open: on a terminal both share the screen line.
 */
export class Terminal {
  readonly style: Style;
  readonly json: boolean;
  private atLineStart = true;
  private activityText: string | undefined;
  private spinnerShown = false;
  private frame = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly spinnerEnabled: boolean;

  constructor(
    settings: TerminalSettings,
    private readonly out: OutputStream = process.stdout,
    private readonly err: OutputStream = process.stderr,
  ) {
    this.json = settings.json;
    this.style = createStyle(colorEnabled(settings, out));
    this.spinnerEnabled = !settings.json && err.isTTY === true;
  }

  /** Whether stdout is an interactive terminal. */
  get interactive(): boolean {
    return this.out.isTTY === true;
  }

  /** Writes text to stdout as is (it may leave the line open). */
  write(text: string): void {
    if (text === '') return;
    this.hideSpinner();
    this.out.write(text);
    this.atLineStart = text.endsWith('\n');
  }

  /** Writes one line to stdout, closing an open line first. */
  line(text = ''): void {
    this.endLine();
    this.write(`${text}\n`);
  }

  /** Closes the open stdout line, if any. */
  endLine(): void {
    if (!this.atLineStart) this.write('\n');
  }

  /** Writes a JSON document (`--json`) on its own lines. */
  jsonDocument(value: unknown): void {
    this.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  /** Writes one JSON value on one line (NDJSON). */
  jsonLine(value: unknown): void {
    this.write(`${JSON.stringify(value)}\n`);
  }

  /** Writes one diagnostic line to stderr. */
  error(text: string): void {
    this.hideSpinner();
    if (!this.atLineStart && this.out.isTTY === true && this.err.isTTY === true) {
      this.endLine();
    }
    this.err.write(`${text}\n`);
  }

  /**
   * Writes a notice about Ctrl-C to stderr on a line of its own: the terminal has just echoed
   * `^C` where the cursor was, and the notice must not run on after it.
   */
  interruptNotice(text: string): void {
    const closesItself = this.spinnerShown || (!this.atLineStart && this.out.isTTY === true);
    if (this.err.isTTY === true && !closesItself) this.err.write('\n');
    this.error(text);
  }

  /**
   * Shows a spinner with `text` on stderr while something is in progress (a TTY only); `undefined`
   * removes it.
   */
  activity(text: string | undefined): void {
    this.activityText = text;
    if (!this.spinnerEnabled) return;
    if (text === undefined) {
      this.hideSpinner();
      if (this.timer !== undefined) clearInterval(this.timer);
      this.timer = undefined;
      return;
    }
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.drawSpinner(), FRAME_MS);
      this.timer.unref();
    }
    this.drawSpinner();
  }

  /** Stops the spinner and closes the open line: the command is about to end. */
  close(): void {
    this.activity(undefined);
    if (!this.json) this.endLine();
  }

  private drawSpinner(): void {
    if (this.activityText === undefined || !this.atLineStart) return;
    this.frame = (this.frame + 1) % FRAMES.length;
    const frame = FRAMES[this.frame] ?? '';
    this.err.write(`${CLEAR_LINE}${this.style.cyan(frame)} ${this.style.dim(this.activityText)}`);
    this.spinnerShown = true;
  }

  private hideSpinner(): void {
    if (!this.spinnerShown) return;
    this.err.write(CLEAR_LINE);
    this.spinnerShown = false;
  }
}
