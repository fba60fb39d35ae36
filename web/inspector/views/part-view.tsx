/**
 * A part as its media type says: markdown rendered (sanitized), other text as text, images
 * inline, other files as downloads (a file the agent names by URL as a link), data as a JSON tree.
 */

import type { JSX } from 'preact';
import { useMemo } from 'preact/hooks';
import type { Part } from '../../../src/index.js';
import { renderMarkdown } from '../markdown.js';
import { JsonTree } from './json-tree.js';

function isMarkdown(mediaType: string | undefined): boolean {
  return mediaType === 'text/markdown' || mediaType === 'text/x-markdown';
}

function Markdown(props: { text: string }): JSX.Element {
  const html = useMemo(() => renderMarkdown(props.text), [props.text]);
  // Sanitized by DOMPurify in renderMarkdown.
  return <div class="part part-markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}

export function PartView(props: { part: Part }): JSX.Element {
  const { part } = props;
  const mediaType = part.mediaType;
  if (part.text !== undefined) {
    if (isMarkdown(mediaType)) return <Markdown text={part.text} />;
    return <pre class="part part-text">{part.text}</pre>;
  }
  if (part.data !== undefined) {
    return (
      <div class="part part-data">
        <JsonTree value={part.data} label="data part" />
      </div>
    );
  }
  const name = part.filename ?? 'file';
  if (part.raw !== undefined) {
    const href = `data:${mediaType ?? 'application/octet-stream'};base64,${part.raw}`;
    if (mediaType?.startsWith('image/') === true) {
      return <img class="part part-image" src={href} alt={name} />;
    }
    return (
      <a class="part part-file" href={href} download={name}>
        ⬇ {name} <span class="muted">({mediaType ?? 'file'})</span>
      </a>
    );
  }
  if (part.url !== undefined) {
    return (
      <a class="part part-file" href={part.url} target="_blank" rel="noopener noreferrer">
        🔗 {name}{' '}
        <span class="muted">
          ({mediaType ?? 'file'}, {part.url})
        </span>
      </a>
    );
  }
  return <pre class="part">{JSON.stringify(part)}</pre>;
}
