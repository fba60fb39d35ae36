/**
 * Markdown from an agent, made safe to show: rendered by marked, then sanitized by DOMPurify
 * (no scripts, no event handlers, no `javascript:` links), and links open apart from the page.
 * The page's Content-Security-Policy backs this up: even a script that got through would not run.
 */

import DOMPurify from 'dompurify';
import { marked } from 'marked';

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

/** The sanitized HTML of `markdown`. */
export function renderMarkdown(markdown: string): string {
  const html = marked.parse(markdown, { async: false, gfm: true });
  return DOMPurify.sanitize(html, { USE_PROFILES: { html: true } });
}
