/**
 * Markdown from an agent, made safe to show. Raw HTML in it is shown as text, never parsed;
 * images become links (the page loads nothing from elsewhere); what marked renders is then
 * sanitized by DOMPurify (no `javascript:` links, no handlers), and links open apart from the
 * page. The page's Content-Security-Policy backs this up: a script that got through would not run.
 */

import DOMPurify from 'dompurify';
import { Marked } from 'marked';

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

const marked = new Marked({
  gfm: true,
  async: false,
  renderer: {
    html: ({ text }) => escapeHtml(text),
    image: ({ href, text }) => `<a href="${escapeHtml(href)}">🖼 ${escapeHtml(text || href)}</a>`,
  },
});

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

/** The sanitized HTML of `markdown`. */
export function renderMarkdown(markdown: string): string {
  const html = marked.parse(markdown, { async: false });
  return DOMPurify.sanitize(html, { USE_PROFILES: { html: true } });
}
