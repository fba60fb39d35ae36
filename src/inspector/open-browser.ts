/**
 * Opening the inspector in the user's browser with the platform's opener: `open` on macOS,
 * `start` on Windows, `xdg-open` elsewhere. Without one (a server, a container) nothing fails:
 * the caller has printed the URL, and `onUnavailable` says to open it by hand.
 */

import { spawn } from 'node:child_process';

/** The opener command of `platform`. */
export function openerOf(platform: NodeJS.Platform): {
  command: string;
  args: (url: string) => string[];
} {
  switch (platform) {
    case 'darwin':
      return { command: 'open', args: (url) => [url] };
    case 'win32':
      // `start` is a shell built-in; the empty title keeps a quoted URL from becoming the title.
      return { command: 'cmd', args: (url) => ['/c', 'start', '""', url] };
    default:
      return { command: 'xdg-open', args: (url) => [url] };
  }
}

/** Opens `url`; calls `onUnavailable` (never throws) when the opener is missing or fails. */
export function openBrowser(url: string, onUnavailable: (reason: string) => void): void {
  const opener = openerOf(process.platform);
  try {
    const child = spawn(opener.command, opener.args(url), { stdio: 'ignore', detached: true });
    child.once('error', (error) => onUnavailable(`${opener.command}: ${error.message}`));
    child.once('exit', (code) => {
      if (code !== 0 && code !== null) onUnavailable(`${opener.command} exited with code ${code}`);
    });
    child.unref();
  } catch (error) {
    onUnavailable(error instanceof Error ? error.message : String(error));
  }
}
