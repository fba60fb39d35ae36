/**
 * The composer: text (Enter sends, Shift+Enter adds a line), files (uploaded as bytes, or by
 * URL) and a data part (JSON, checked as you type), sent streamed when the agent streams.
 */

import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ComposerPart } from '../../../src/inspector/inspector-api.js';
import { sendTurn } from '../chat-actions.js';
import { update, useStore } from '../store.js';

function base64Of(buffer: ArrayBuffer): string {
  const bytes = new Uint8Array(buffer);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

function dataProblem(text: string): string | null {
  if (text.trim() === '') return null;
  try {
    JSON.parse(text);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

export function Composer(props: { streaming: boolean; disabled: boolean }): JSX.Element {
  const [text, setText] = useState('');
  const [files, setFiles] = useState<ComposerPart[]>([]);
  const [fileUrl, setFileUrl] = useState('');
  const [data, setData] = useState('');
  const [stream, setStream] = useState(props.streaming);
  const pendingTaskId = useStore((s) => s.pendingTaskId);
  const draft = useStore((s) => s.draft);
  const input = useRef<HTMLTextAreaElement>(null);
  const problem = dataProblem(data);

  useEffect(() => setStream(props.streaming), [props.streaming]);
  useEffect(() => {
    if (draft === undefined) return;
    setText(draft);
    input.current?.focus();
    update(() => ({ draft: undefined }));
  }, [draft]);

  const parts = (): ComposerPart[] => [
    ...(text.trim() === '' ? [] : [{ kind: 'text' as const, text }]),
    ...files,
    ...(fileUrl.trim() === '' ? [] : [{ kind: 'url' as const, url: fileUrl.trim() }]),
    ...(data.trim() === '' || problem !== null
      ? []
      : [{ kind: 'data' as const, data: JSON.parse(data) as unknown }]),
  ];
  const canSend = !props.disabled && problem === null && parts().length > 0;

  const send = (): void => {
    if (!canSend) return;
    const message = parts();
    setText('');
    setFiles([]);
    setFileUrl('');
    setData('');
    void sendTurn(message, stream);
  };

  const onFiles = async (list: FileList | null): Promise<void> => {
    const added: ComposerPart[] = [];
    for (const file of Array.from(list ?? [])) {
      added.push({
        kind: 'file',
        filename: file.name,
        mediaType: file.type === '' ? 'application/octet-stream' : file.type,
        bytes: base64Of(await file.arrayBuffer()),
      });
    }
    setFiles([...files, ...added]);
  };

  return (
    <form
      class="composer"
      aria-label="Message"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      {pendingTaskId !== undefined && (
        <p class="muted" data-testid="continuing">
          Continues task <code>{pendingTaskId}</code>, which asked for input.
        </p>
      )}
      <label class="sr-only" for="composer-text">
        Message text
      </label>
      <textarea
        id="composer-text"
        ref={input}
        name="text"
        rows={3}
        placeholder="Message (Enter sends, Shift+Enter adds a line)"
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            send();
          }
        }}
      />
      <details class="attachments">
        <summary>Files and data</summary>
        <label>
          Attach files (sent as bytes)
          <input
            name="files"
            type="file"
            multiple
            onChange={(e) => void onFiles(e.currentTarget.files)}
          />
        </label>
        {files.map((file, index) =>
          file.kind === 'file' ? (
            <p class="attachment" key={index}>
              📎 {file.filename} ({file.mediaType}){' '}
              <button type="button" onClick={() => setFiles(files.filter((_, i) => i !== index))}>
                Remove
              </button>
            </p>
          ) : null,
        )}
        <label>
          File by URL
          <input
            name="file-url"
            type="url"
            value={fileUrl}
            onInput={(e) => setFileUrl(e.currentTarget.value)}
          />
        </label>
        <label>
          Data part (JSON)
          <textarea
            name="data"
            rows={3}
            value={data}
            aria-invalid={problem !== null}
            aria-describedby="data-problem"
            onInput={(e) => setData(e.currentTarget.value)}
          />
        </label>
        {problem !== null && (
          <p id="data-problem" class="field-error" role="status">
            Not JSON: {problem}
          </p>
        )}
      </details>
      <div class="row">
        <label class="inline">
          <input
            type="checkbox"
            name="stream"
            checked={stream}
            onChange={(e) => setStream(e.currentTarget.checked)}
          />
          Stream
        </label>
        <button type="submit" class="primary" disabled={!canSend}>
          Send
        </button>
      </div>
    </form>
  );
}
