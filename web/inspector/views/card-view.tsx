/**
 * Card: the agent card rendered — name, description, provider, skills (their examples are
 * prompts to click), capabilities, interfaces (the one in use marked), security schemes — with
 * its validation problems by field path (marked in the raw JSON too), the signature status, the
 * extended card on request, and the raw JSON as received.
 */

import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { AgentCard } from '../../../src/index.js';
import { call, failureOf } from '../api.js';
import { showError, update, useStore } from '../store.js';
import { JsonTree } from './json-tree.js';

/** Puts `text` in the composer and opens the chat. */
function usePrompt(text: string): void {
  update(() => ({ tab: 'chat', draft: text }));
}

function schemeSummary(scheme: Record<string, unknown>): string {
  const [kind, detail] = Object.entries(scheme)[0] ?? ['unknown', {}];
  const fields = detail as Record<string, unknown>;
  const field = (name: string): string => {
    const value = fields[name];
    return typeof value === 'string' ? value : '';
  };
  switch (kind) {
    case 'httpAuthSecurityScheme':
      return `HTTP ${field('scheme')}`;
    case 'apiKeySecurityScheme':
      return `API key in ${field('location')} "${field('name')}"`;
    case 'oauth2SecurityScheme':
      return 'OAuth 2.0';
    case 'openIdConnectSecurityScheme':
      return `OpenID Connect (${field('openIdConnectUrl')})`;
    case 'mtlsSecurityScheme':
      return 'Mutual TLS';
    default:
      return kind;
  }
}

function CardBody(props: { card: AgentCard; selectedUrl: string | undefined }): JSX.Element {
  const { card } = props;
  const capabilities = card.capabilities ?? {};
  return (
    <div class="card-body">
      <h2 data-testid="card-name">{card.name}</h2>
      <p>{card.description}</p>
      <p class="muted">
        Version {card.version}
        {card.provider !== undefined && ` · by ${card.provider.organization}`}
      </p>
      <section>
        <h3>Capabilities</h3>
        <ul class="chips">
          <li class={capabilities.streaming === true ? 'chip on' : 'chip'}>streaming</li>
          <li class={capabilities.pushNotifications === true ? 'chip on' : 'chip'}>
            push notifications
          </li>
          <li class={capabilities.extendedAgentCard === true ? 'chip on' : 'chip'}>
            extended card
          </li>
          {(capabilities.extensions ?? []).map((extension) => (
            <li class="chip on" key={extension.uri}>
              {extension.uri}
            </li>
          ))}
        </ul>
      </section>
      <section>
        <h3>Interfaces</h3>
        <table>
          <thead>
            <tr>
              <th scope="col">Binding</th>
              <th scope="col">Version</th>
              <th scope="col">URL</th>
            </tr>
          </thead>
          <tbody>
            {card.supportedInterfaces.map((i) => (
              <tr
                key={`${i.protocolBinding}${i.url}${i.protocolVersion}`}
                class={i.url === props.selectedUrl ? 'selected' : ''}
              >
                <td>{i.protocolBinding}</td>
                <td>{i.protocolVersion}</td>
                <td>
                  <code>{i.url}</code>
                  {i.tenant !== undefined && i.tenant !== '' && (
                    <span class="muted"> tenant {i.tenant}</span>
                  )}
                  {i.url === props.selectedUrl && <strong> (in use)</strong>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section>
        <h3>Skills</h3>
        {card.skills.map((skill) => (
          <article class="skill" key={skill.id}>
            <h4>{skill.name}</h4>
            <p>{skill.description}</p>
            <ul class="chips">
              {skill.tags.map((tag) => (
                <li class="chip" key={tag}>
                  {tag}
                </li>
              ))}
            </ul>
            {(skill.examples ?? []).length > 0 && (
              <p>
                Try:{' '}
                {(skill.examples ?? []).map((example) => (
                  <button
                    type="button"
                    class="prompt"
                    key={example}
                    onClick={() => usePrompt(example)}
                  >
                    {example}
                  </button>
                ))}
              </p>
            )}
          </article>
        ))}
      </section>
      {card.securitySchemes !== undefined && Object.keys(card.securitySchemes).length > 0 && (
        <section>
          <h3>Security</h3>
          <ul>
            {Object.entries(card.securitySchemes).map(([name, scheme]) => (
              <li key={name}>
                <code>{name}</code>: {schemeSummary(scheme as Record<string, unknown>)}
              </li>
            ))}
          </ul>
          {(card.securityRequirements ?? []).length > 0 && (
            <p class="muted">
              Required:{' '}
              {(card.securityRequirements ?? [])
                .map((r) => Object.keys(r.schemes ?? {}).join(' + '))
                .join(' or ')}
            </p>
          )}
        </section>
      )}
    </div>
  );
}

export function CardView(): JSX.Element {
  const connection = useStore((s) => s.connection);
  const [extended, setExtended] = useState<AgentCard | null>(null);
  if (connection === null) {
    return <p class="view empty">Connect to an agent first.</p>;
  }
  const marked = new Set(connection.violations.map((v) => v.field.replace(/^card\.?/, '')));
  const signature = connection.signature;
  const fetchExtended = async (): Promise<void> => {
    try {
      setExtended(await call<AgentCard>('extended-card', { connectionId: connection.id }));
    } catch (error) {
      showError('Get the extended card', failureOf(error));
    }
  };
  return (
    <div class="view card-view">
      {connection.violations.length > 0 && (
        <section class="problems" role="alert">
          <h3>This card is not valid ({connection.violations.length} problems)</h3>
          <ul>
            {connection.violations.map((v) => (
              <li key={v.field + v.description}>
                <code>{v.field}</code>: {v.description}
              </li>
            ))}
          </ul>
        </section>
      )}
      {connection.card !== undefined && (
        <CardBody card={connection.card} selectedUrl={connection.selected?.url} />
      )}
      <section>
        <h3>Signature</h3>
        <p data-testid="signature">
          {signature.state === 'unsigned' && 'Not signed.'}
          {signature.state === 'unverified' &&
            `Signed (${signature.count} signature${signature.count === 1 ? '' : 's'}), not verified: ${signature.reason}.`}
          {signature.state === 'verified' &&
            `Verified: ${signature.alg}, key ${signature.kid ?? '(no kid)'}.`}
          {signature.state === 'invalid' && `Does not verify: ${signature.reason}`}
        </p>
      </section>
      {connection.card?.capabilities?.extendedAgentCard === true && (
        <section>
          <h3>Extended card</h3>
          <button type="button" onClick={() => void fetchExtended()}>
            Get the extended card
          </button>
          {extended !== null && <JsonTree value={extended} label="extended card" open={1} />}
        </section>
      )}
      <section>
        <h3>Raw JSON (as received)</h3>
        <JsonTree value={connection.rawCard ?? null} marked={marked} label="raw card" open={1} />
      </section>
    </div>
  );
}
