/**
 * The web console: sign-in, navigation and the screens (./screens). Mounted on #app by
 * index.html (functions/dashboard/build.ts). It calls only the public API (./api.ts).
 */
import { render } from 'preact';
import { useState } from 'preact/hooks';
import { call, session } from './api';
import { navigate, useLocation } from './router';
import { ApiKeys } from './screens/api-keys';
import { Audience, ContactDetail } from './screens/audience';
import { AutomationDetail, Automations, RunDetail } from './screens/automations';
import { BroadcastDetail, Broadcasts, ComposeBroadcast } from './screens/broadcasts';
import { Consent } from './screens/consent';
import { DomainDetail, Domains } from './screens/domains';
import { Deliverability } from './screens/deliverability';
import { EmailDetail, Emails } from './screens/emails';
import { InboxDraft, Inboxes, InboxThread, InboxView } from './screens/inbox';
import { Overview } from './screens/overview';
import { Suppressions } from './screens/suppressions';
import { TemplateDetail, Templates } from './screens/templates';
import { WebhookDetail, Webhooks } from './screens/webhooks';
import { describe, Empty, ErrorBox, Field, html, Link, Page } from './ui';

const NAV: [string, string][] = [
  ['/', 'Overview'],
  ['/emails', 'Emails'],
  ['/inboxes', 'Inboxes'],
  ['/domains', 'Domains'],
  ['/audience', 'Audience'],
  ['/broadcasts', 'Broadcasts'],
  ['/automations', 'Automations'],
  ['/templates', 'Templates'],
  ['/suppressions', 'Suppressions'],
  ['/webhooks', 'Webhooks'],
  ['/api-keys', 'API keys'],
];

/** Checks the key with GET /project (any full-access key or token may read it) before keeping it. */
function SignIn({ onSignedIn, note }: { onSignedIn: () => void; note?: string }) {
  const [error, setError] = useState<string | undefined>();
  const [pending, setPending] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const token = String(new FormData(event.currentTarget as HTMLFormElement).get('key') ?? '').trim();
    setPending(true);
    try {
      await call('GET', '/project', undefined, token);
      session.signIn(token);
      onSignedIn();
    } catch (failure) {
      setError(describe(failure));
      setPending(false);
    }
  };
  return html`<main id="main" class="signin">
    <p class="brand">Email service</p>
    <h1>Sign in to the console</h1>
    <p class="muted">${note ?? 'Emails, domains, audience, broadcasts, automations, templates, webhooks and keys of one project.'}</p>
    <form class="stack card" onSubmit=${submit}>
      <${Field} label="API key" hint="A full-access API key (es_live_…) or an OAuth access token. Kept in this tab only (sessionStorage).">
        <input name="key" type="password" autocomplete="off" required spellcheck="false" />
      <//>
      <${ErrorBox} error=${error} />
      <button type="submit" disabled=${pending}>Sign in</button>
    </form>
  </main>`;
}

function screen(path: string, query: URLSearchParams) {
  const [, first, second, third, fourth] = path.split('/').map((part) => (part ? decodeURIComponent(part) : part));
  switch (first) {
    case '':
    case undefined:
      return html`<${Overview} />`;
    case 'emails':
      return second ? html`<${EmailDetail} id=${second} />` : html`<${Emails} />`;
    case 'inboxes':
      // keyed by id: another thread or draft opens with its own state (a thread marks itself read once)
      return !second
        ? html`<${Inboxes} />`
        : third === 'threads' && fourth
          ? html`<${InboxThread} key=${fourth} inbox=${second} id=${fourth} />`
          : third === 'drafts' && fourth
            ? html`<${InboxDraft} key=${fourth} inbox=${second} id=${fourth} />`
            : html`<${InboxView} key=${second} inbox=${second} query=${query} />`;
    case 'domains':
      return second && third === 'deliverability'
        ? html`<${Deliverability} key=${second} id=${second} />`
        : second
          ? html`<${DomainDetail} id=${second} />`
          : html`<${Domains} />`;
    case 'audience':
      return second === 'contacts' && third ? html`<${ContactDetail} id=${third} />` : html`<${Audience} />`;
    case 'broadcasts':
      return second === 'new'
        ? html`<${ComposeBroadcast} />`
        : second
          ? html`<${BroadcastDetail} id=${second} />`
          : html`<${Broadcasts} />`;
    case 'automations':
      // keyed by id: a duplicate opens with its own filters, pages and confirmations
      return second && third === 'runs' && fourth
        ? html`<${RunDetail} automationId=${second} runId=${fourth} />`
        : second
          ? html`<${AutomationDetail} key=${second} id=${second} />`
          : html`<${Automations} />`;
    case 'templates':
      return second ? html`<${TemplateDetail} id=${second} />` : html`<${Templates} />`;
    case 'suppressions':
      return html`<${Suppressions} />`;
    case 'webhooks':
      return second ? html`<${WebhookDetail} id=${second} />` : html`<${Webhooks} />`;
    case 'api-keys':
      return html`<${ApiKeys} />`;
    case 'oauth':
      return html`<${Consent} query=${query} />`;
    default:
      return html`<${Page} title="Not found"><${Empty} title="No such page">Back to the <${Link} to="/">overview<//>.<//><//>`;
  }
}

function App() {
  const { path, query } = useLocation();
  const [signedIn, setSignedIn] = useState(() => session.token() !== null);
  const consent = path.startsWith('/oauth/');
  if (!signedIn)
    return html`<${SignIn} onSignedIn=${() => setSignedIn(true)} note=${consent ? 'An application asks for access to this project. Sign in with a full-access API key of the project to review it.' : undefined} />`;
  const signOut = () => {
    session.signOut();
    setSignedIn(false);
    navigate('/');
  };
  const section = `/${path.split('/')[1] ?? ''}`;
  // an API key says its mode in its prefix; an OAuth access token does not, and shows none
  const mode = /^es_(live|test)_/.exec(session.token() ?? '')?.[1];
  return html`<div class=${consent ? 'layout no-nav' : 'layout'}>
    <a class="skip" href="#main">Skip to content</a>
    <header class="top"><span class="brand">Email service</span>
      <span class="top-end">${mode ? html`<span class=${`badge ${mode === 'test' ? 'warn' : 'good'}`} title="The mode of the key this tab is signed in with">${mode} mode</span>` : null}
        <button type="button" class="secondary small" onClick=${signOut}>Sign out</button></span></header>
    ${consent ? null : html`<nav aria-label="Console"><ul>${NAV.map(([to, label]) => html`<li><${Link} to=${to} class=${section === to ? 'current' : ''}>${label}<//></li>`)}</ul></nav>`}
    <main id="main">${screen(path, query)}</main>
  </div>`;
}

render(html`<${App} />`, document.getElementById('app')!);
