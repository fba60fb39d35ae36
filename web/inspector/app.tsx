/**
 * The page: a tab per view, the error banner, the theme switch, and keyboard use — the tabs are
 * a tab list (arrow keys move between them; Alt+1…8 jump to one).
 */

import type { JSX } from 'preact';
import { useEffect } from 'preact/hooks';
import { TABS, update, useStore, type TabName } from './store.js';
import { CardView } from './views/card-view.js';
import { ChatView } from './views/chat-view.js';
import { CheckView } from './views/check-view.js';
import { ConnectView } from './views/connect-view.js';
import { ErrorBanner } from './views/error-banner.js';
import { EventsView } from './views/events-view.js';
import { PushView } from './views/push-view.js';
import { TasksView } from './views/tasks-view.js';
import { WireView } from './views/wire-view.js';

function ViewOf(props: { tab: TabName }): JSX.Element {
  switch (props.tab) {
    case 'connect':
      return <ConnectView />;
    case 'card':
      return <CardView />;
    case 'chat':
      return <ChatView />;
    case 'events':
      return <EventsView />;
    case 'tasks':
      return <TasksView />;
    case 'push':
      return <PushView />;
    case 'wire':
      return <WireView />;
    case 'check':
      return <CheckView />;
  }
}

function select(tab: TabName): void {
  update(() => ({ tab }));
  document.getElementById(`tab-${tab}`)?.focus();
}

export function App(): JSX.Element {
  const tab = useStore((s) => s.tab);
  const theme = useStore((s) => s.theme);
  const connection = useStore((s) => s.connection);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      const index = Number(event.key) - 1;
      if (event.altKey && index >= 0 && index < TABS.length) {
        event.preventDefault();
        select(TABS[index]?.name ?? 'connect');
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  const onTabKey = (event: KeyboardEvent): void => {
    const index = TABS.findIndex((t) => t.name === tab);
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) return;
    event.preventDefault();
    select(TABS[(index + step + TABS.length) % TABS.length]?.name ?? 'connect');
  };
  return (
    <>
      <header class="top">
        <h1>Tandem inspector</h1>
        <p class="muted" data-testid="header-agent">
          {connection === null
            ? 'not connected'
            : `${connection.card?.name ?? connection.url}${connection.selected === undefined ? '' : ` · ${connection.selected.protocolBinding} ${connection.selected.protocolVersion}`}`}
        </p>
        <label class="theme">
          Theme
          <select
            name="theme"
            value={theme}
            onChange={(e) =>
              update(() => ({ theme: e.currentTarget.value as 'auto' | 'light' | 'dark' }))
            }
          >
            <option value="auto">system</option>
            <option value="light">light</option>
            <option value="dark">dark</option>
          </select>
        </label>
      </header>
      <nav role="tablist" aria-label="Views" onKeyDown={onTabKey}>
        {TABS.map((t, index) => (
          <button
            type="button"
            role="tab"
            id={`tab-${t.name}`}
            key={t.name}
            aria-selected={t.name === tab}
            aria-controls="view"
            tabIndex={t.name === tab ? 0 : -1}
            title={`Alt+${index + 1}`}
            onClick={() => select(t.name)}
          >
            {t.label}
          </button>
        ))}
      </nav>
      <ErrorBanner />
      <main>
        <div id="view" role="tabpanel" aria-labelledby={`tab-${tab}`}>
          <ViewOf tab={tab} />
        </div>
      </main>
    </>
  );
}
