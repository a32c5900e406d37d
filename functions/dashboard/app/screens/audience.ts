import { useMemo, useState } from 'preact/hooks';
import { del, get, post, qs, seg } from '../api';
import {
  Badge,
  Empty,
  ErrorBox,
  Field,
  formValues,
  html,
  Link,
  loaded,
  Page,
  Table,
  useAction,
  useData,
  when,
} from '../ui';

/** Contacts (searched here within the loaded page; the segment filter is the API's), segments and topics. */
export function Audience() {
  const [segment, setSegment] = useState('');
  const [search, setSearch] = useState('');
  const contacts = useData(() => get(`/contacts${qs({ limit: 100, segment_id: segment })}`), [segment]);
  const segments = useData(() => get('/segments?limit=100'));
  const topics = useData(() => get('/topics?limit=100'));
  const action = useAction();
  const shown = useMemo(() => {
    const needle = search.toLowerCase();
    return (contacts.data?.data ?? []).filter(
      (c: any) =>
        !needle || [c.email, c.first_name, c.last_name].some((v) => v && String(v).toLowerCase().includes(needle)),
    );
  }, [contacts.data, search]);
  const addContact = (event: Event) => {
    const form = event.currentTarget as HTMLFormElement;
    const v = formValues(event);
    return action.run(async () => {
      await post('/contacts', {
        email: v.email,
        ...(v.first_name ? { first_name: v.first_name } : {}),
        ...(v.last_name ? { last_name: v.last_name } : {}),
        ...(v.segment ? { segments: [v.segment] } : {}),
      });
      form.reset();
      contacts.reload();
    });
  };
  const addSegment = (event: Event) => {
    const form = event.currentTarget as HTMLFormElement;
    const { name } = formValues(event);
    return action.run(async () => (await post('/segments', { name }), form.reset(), segments.reload()));
  };
  const addTopic = (event: Event) => {
    const form = event.currentTarget as HTMLFormElement;
    const v = formValues(event);
    return action.run(
      async () => (
        await post('/topics', { name: v.name, default_subscription: v.default_subscription }),
        form.reset(),
        topics.reload()
      ),
    );
  };
  const segmentList: any[] = segments.data?.data ?? [];
  return html`<${Page} title="Audience" lead="Contacts, the segments broadcasts go to, and the topics contacts subscribe to.">
    <${ErrorBox} error=${action.error} />
    <h2 class="first">Contacts</h2>
    <form class="filters" onSubmit=${(e: Event) => e.preventDefault()}>
      <${Field} label="Search"><input type="search" value=${search} onInput=${(e: any) => setSearch(e.currentTarget.value)} /><//>
      <${Field} label="Segment"><select value=${segment} onChange=${(e: any) => setSegment(e.currentTarget.value)}><option value="">All contacts</option>${segmentList.map((s) => html`<option value=${s.id}>${s.name}</option>`)}</select><//>
    </form>
    ${loaded(
      contacts,
      () => html`<${Table}
        label="Contacts"
        columns=${['Email', 'Name', 'Subscribed', 'Created']}
        empty=${search || segment ? html`<${Empty} title="No contacts match" />` : html`<${Empty} title="No contacts yet">Add one below, or import a CSV with <code>POST /contacts/imports</code>.<//>`}
        rows=${shown.map(
          (c: any) =>
            html`<tr><td class="wrap"><${Link} to=${`/audience/contacts/${c.id}`}>${c.email}<//></td><td>${[c.first_name, c.last_name].filter(Boolean).join(' ')}</td><td><${Badge} value=${c.unsubscribed ? 'unsubscribed' : 'subscribed'} /></td><td>${when(c.created_at)}</td></tr>`,
        )} />`,
    )}
    <form class="inline card" onSubmit=${addContact}>
      <${Field} label="Email"><input name="email" type="email" required /><//>
      <${Field} label="First name"><input name="first_name" /><//>
      <${Field} label="Last name"><input name="last_name" /><//>
      <${Field} label="Add to segment"><select name="segment"><option value="">None</option>${segmentList.map((s) => html`<option value=${s.id}>${s.name}</option>`)}</select><//>
      <button type="submit" disabled=${action.pending}>Add contact</button>
    </form>
    <div class="columns">
      <div><h2>Segments</h2>
        ${loaded(segments, () =>
          segmentList.length === 0
            ? html`<${Empty} title="No segments">A broadcast goes to a segment: add one, then contacts to it.<//>`
            : html`<ul class="plain">${segmentList.map((s) => html`<li>${s.name} <button type="button" class="small danger" aria-label=${`Delete segment ${s.name}`} onClick=${() => action.run(async () => (await del(`/segments/${seg(s.id)}`), segments.reload()))}>Delete</button></li>`)}</ul>`,
        )}
        <form class="inline" onSubmit=${addSegment}><${Field} label="Segment name"><input name="name" required /><//><button type="submit">Add segment</button></form>
      </div>
      <div><h2>Topics</h2>
        ${loaded(topics, (data) =>
          data.data.length === 0
            ? html`<${Empty} title="No topics">Topics let contacts choose what they get (opt in or out).<//>`
            : html`<ul class="plain">${data.data.map((t: any) => html`<li>${t.name} <${Badge} value=${t.default_subscription} /></li>`)}</ul>`,
        )}
        <form class="inline" onSubmit=${addTopic}>
          <${Field} label="Topic name"><input name="name" required /><//>
          <${Field} label="Default"><select name="default_subscription"><option value="opt_in">opt_in</option><option value="opt_out">opt_out</option></select><//>
          <button type="submit">Add topic</button></form>
      </div>
    </div>
  <//>`;
}

/** A contact property's value as reads show it: Resend's `{type, value}` (the default), or the plain value. */
const propertyValue = (property: unknown) => {
  const value =
    property !== null && typeof property === 'object' && 'value' in property
      ? (property as { value: unknown }).value
      : property;
  return value === null || value === undefined ? '—' : String(value);
};

/** A contact: its fields, its properties, its topic subscriptions and its segments. */
export function ContactDetail({ id }: { id: string }) {
  const state = useData(async () => {
    const [contact, topics, segments] = await Promise.all([
      get(`/contacts/${seg(id)}`),
      get(`/contacts/${seg(id)}/topics?limit=100`),
      get(`/contacts/${seg(id)}/segments?limit=100`),
    ]);
    return { contact, topics: topics.data as any[], segments: segments.data as any[] };
  }, [id]);
  return html`<${Page} title=${state.data?.contact.email ?? 'Contact'}>
    ${loaded(state, ({ contact, topics, segments }) => {
      const properties = Object.entries(contact.properties ?? {});
      return html`
      <dl class="facts"><dt>Name</dt><dd>${[contact.first_name, contact.last_name].filter(Boolean).join(' ') || '—'}</dd>
        <dt>Subscribed</dt><dd><${Badge} value=${contact.unsubscribed ? 'unsubscribed' : 'subscribed'} /></dd><dt>Created</dt><dd>${when(contact.created_at)}</dd>
        <dt>Id</dt><dd><code>${contact.id}</code></dd></dl>
      <h2>Properties</h2>
      <${Table}
        label="Properties"
        columns=${['Property', 'Value']}
        empty=${html`<p class="muted">No properties. Properties are set with <code>properties</code> on <code>POST</code> or <code>PATCH /contacts</code>.</p>`}
        rows=${properties.map(([key, property]) => html`<tr><td><code>${key}</code></td><td class="wrap">${propertyValue(property)}</td></tr>`)} />
      <h2>Subscriptions</h2>
      <${Table}
        label="Subscriptions"
        columns=${['Topic', 'Subscription']}
        empty=${html`<p class="muted">No topics.</p>`}
        rows=${topics.map((t: any) => html`<tr><td>${t.name ?? t.id}</td><td><${Badge} value=${t.subscription} /></td></tr>`)} />
      <h2>Segments</h2>
      ${segments.length === 0 ? html`<p class="muted">In no segment.</p>` : html`<ul class="plain">${segments.map((s: any) => html`<li>${s.name}</li>`)}</ul>`}`;
    })}
  <//>`;
}
