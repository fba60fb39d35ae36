/**
 * Connect: the agent's URL, the binding and version to speak, and credentials. Credentials stay
 * in this form's memory until sent to the backend; they are never saved, so a reload empties
 * the form while the backend keeps the connection.
 */

import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type {
  ApiKeyLocation,
  BindingChoice,
  ConnectRequest,
  ConnectionView,
  VersionChoice,
} from '../../../src/inspector/inspector-api.js';
import { call, failureOf } from '../api.js';
import { showError, update, useStore } from '../store.js';

interface HeaderRow {
  name: string;
  value: string;
}

export function ConnectView(): JSX.Element {
  const connection = useStore((s) => s.connection);
  const connecting = useStore((s) => s.connecting);
  const [url, setUrl] = useState(connection?.url ?? '');
  const [binding, setBinding] = useState<BindingChoice>(connection?.binding ?? 'auto');
  const [version, setVersion] = useState<VersionChoice>(connection?.version ?? 'auto');
  const [auth, setAuth] = useState<'none' | 'bearer' | 'apiKey'>('none');
  const [secret, setSecret] = useState('');
  const [keyName, setKeyName] = useState('');
  const [keyLocation, setKeyLocation] = useState<ApiKeyLocation | ''>('');
  const [headers, setHeaders] = useState<HeaderRow[]>([]);
  const [trustedKey, setTrustedKey] = useState('');
  useEffect(() => {
    if (connection === null) return;
    setUrl((current) => (current === '' ? connection.url : current));
  }, [connection]);

  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    const request: ConnectRequest = {
      url,
      binding,
      version,
      credentials: {
        ...(auth === 'bearer' && secret !== '' ? { bearerToken: secret } : {}),
        ...(auth === 'apiKey' && secret !== ''
          ? {
              apiKey: {
                value: secret,
                ...(keyName === '' ? {} : { name: keyName }),
                ...(keyLocation === '' ? {} : { location: keyLocation }),
              },
            }
          : {}),
        headers: headers.filter((h) => h.name.trim() !== ''),
      },
      ...(trustedKey.trim() === '' ? {} : { trustedKey }),
    };
    update(() => ({ connecting: true, error: null }));
    try {
      const view = await call<ConnectionView>('connect', request);
      update(() => ({
        connection: view,
        connecting: false,
        tab: 'card',
        turns: [],
        contextId: undefined,
        pendingTaskId: undefined,
        ...(view.failure === undefined
          ? {}
          : { error: { action: 'Connect', failure: view.failure } }),
      }));
    } catch (error) {
      update(() => ({ connecting: false }));
      showError('Connect', failureOf(error));
    }
  };

  return (
    <form class="view connect-view" onSubmit={(e) => void submit(e)} aria-label="Connect">
      <h2>Connect to an agent</h2>
      <label>
        Agent URL (base or card URL)
        <input
          name="url"
          type="url"
          required
          placeholder="http://127.0.0.1:41241/agents/dice"
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
      </label>
      <div class="row">
        <label>
          Binding
          <select
            name="binding"
            value={binding}
            onChange={(e) => setBinding(e.currentTarget.value as BindingChoice)}
          >
            <option value="auto">Auto (JSON-RPC, REST, gRPC)</option>
            <option value="JSONRPC">JSON-RPC</option>
            <option value="HTTP+JSON">REST (HTTP+JSON)</option>
            <option value="GRPC">gRPC</option>
          </select>
        </label>
        <label>
          Version
          <select
            name="version"
            value={version}
            onChange={(e) => setVersion(e.currentTarget.value as VersionChoice)}
          >
            <option value="auto">Detect (1.0, else 0.3)</option>
            <option value="1.0">1.0</option>
            <option value="0.3">0.3</option>
          </select>
        </label>
      </div>
      <fieldset>
        <legend>Credentials (kept in memory, never saved)</legend>
        <label>
          Authentication
          <select
            name="auth"
            value={auth}
            onChange={(e) => setAuth(e.currentTarget.value as 'none' | 'bearer' | 'apiKey')}
          >
            <option value="none">None</option>
            <option value="bearer">Bearer token</option>
            <option value="apiKey">API key</option>
          </select>
        </label>
        {auth !== 'none' && (
          <label>
            {auth === 'bearer' ? 'Token' : 'Key'}
            <input
              name="secret"
              type="password"
              autoComplete="off"
              value={secret}
              onInput={(e) => setSecret(e.currentTarget.value)}
            />
          </label>
        )}
        {auth === 'apiKey' && (
          <div class="row">
            <label>
              Name (default: the card's scheme)
              <input
                name="key-name"
                value={keyName}
                onInput={(e) => setKeyName(e.currentTarget.value)}
              />
            </label>
            <label>
              In
              <select
                name="key-location"
                value={keyLocation}
                onChange={(e) => setKeyLocation(e.currentTarget.value as ApiKeyLocation | '')}
              >
                <option value="">where the card says</option>
                <option value="header">header</option>
                <option value="query">query</option>
                <option value="cookie">cookie</option>
              </select>
            </label>
          </div>
        )}
        {headers.map((row, index) => (
          <div class="row" key={index}>
            <label>
              Header name
              <input
                value={row.name}
                onInput={(e) => {
                  const name = e.currentTarget.value;
                  setHeaders(headers.map((h, i) => (i === index ? { ...h, name } : h)));
                }}
              />
            </label>
            <label>
              Value
              <input
                type="password"
                autoComplete="off"
                value={row.value}
                onInput={(e) => {
                  const value = e.currentTarget.value;
                  setHeaders(headers.map((h, i) => (i === index ? { ...h, value } : h)));
                }}
              />
            </label>
            <button type="button" onClick={() => setHeaders(headers.filter((_, i) => i !== index))}>
              Remove
            </button>
          </div>
        ))}
        <button type="button" onClick={() => setHeaders([...headers, { name: '', value: '' }])}>
          Add a header
        </button>
      </fieldset>
      <details>
        <summary>Verify the card's signature</summary>
        <label>
          Trusted public key (PEM, JWK or JWKS)
          <textarea
            name="trusted-key"
            rows={4}
            value={trustedKey}
            onInput={(e) => setTrustedKey(e.currentTarget.value)}
          />
        </label>
      </details>
      <button type="submit" class="primary" disabled={connecting}>
        {connecting ? 'Connecting…' : 'Connect'}
      </button>
      {connection !== null && (
        <p class="muted" data-testid="connected-to">
          Connected to {connection.card?.name ?? connection.url}
          {connection.selected !== undefined &&
            ` over ${connection.selected.protocolBinding} ${connection.selected.protocolVersion}`}
        </p>
      )}
    </form>
  );
}
