import { useMemo, useState } from 'preact/hooks';
import { del, get, post, qs, seg } from '../api';
import { Badge, ErrorBox, Field, formValues, html, Link, Loading, Page, useAction, useData, when } from '../ui';

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
    return (contacts.data?.data ?? []).filter((c: any) => !needle || [c.email, c.first_name, c.last_name].some((v) => v && String(v).toLowerCase().includes(needle)));
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
    return action.run(async () => (await post('/topics', { name: v.name, default_subscription: v.default_subscription }), form.reset(), topics.reload()));
  };
  const segmentList: any[] = segments.data?.data ?? [];
  return html`<${Page} title="Audience">
    <${ErrorBox} error=${action.error || contacts.error || segments.error || topics.error} />
    <h2>Contacts</h2>
    <form class="filters" onSubmit=${(e: Event) => e.preventDefault()}>
      <${Field} label="Search"><input type="search" value=${search} onInput=${(e: any) => setSearch(e.currentTarget.value)} /><//>
      <${Field} label="Segment"><select value=${segment} onChange=${(e: any) => setSegment(e.currentTarget.value)}><option value="">All contacts</option>${segmentList.map((s) => html`<option value=${s.id}>${s.name}</option>`)}</select><//>
    </form>
    ${contacts.loading && !contacts.data ? html`<${Loading} />` : null}
    <table><thead><tr><th scope="col">Email</th><th scope="col">Name</th><th scope="col">Subscribed</th><th scope="col">Created</th></tr></thead>
      <tbody>${shown.map(
        (c: any) =>
          html`<tr><td><${Link} to=${`/audience/contacts/${c.id}`}>${c.email}<//></td><td>${[c.first_name, c.last_name].filter(Boolean).join(' ')}</td><td><${Badge} value=${c.unsubscribed ? 'unsubscribed' : 'subscribed'} /></td><td>${when(c.created_at)}</td></tr>`,
      )}</tbody></table>
    <form class="inline" onSubmit=${addContact}>
      <${Field} label="Email"><input name="email" type="email" required /><//>
      <${Field} label="First name"><input name="first_name" /><//>
      <${Field} label="Last name"><input name="last_name" /><//>
      <${Field} label="Add to segment"><select name="segment"><option value="">None</option>${segmentList.map((s) => html`<option value=${s.id}>${s.name}</option>`)}</select><//>
      <button type="submit" disabled=${action.pending}>Add contact</button>
    </form>
    <div class="columns">
      <div><h2>Segments</h2>
        <ul class="plain">${segmentList.map((s) => html`<li>${s.name} <button type="button" class="small danger" aria-label=${`Delete segment ${s.name}`} onClick=${() => action.run(async () => (await del(`/segments/${seg(s.id)}`), segments.reload()))}>Delete</button></li>`)}</ul>
        <form class="inline" onSubmit=${addSegment}><${Field} label="Segment name"><input name="name" required /><//><button type="submit">Add segment</button></form>
      </div>
      <div><h2>Topics</h2>
        <ul class="plain">${(topics.data?.data ?? []).map((t: any) => html`<li>${t.name} <${Badge} value=${t.default_subscription} /></li>`)}</ul>
        <form class="inline" onSubmit=${addTopic}>
          <${Field} label="Topic name"><input name="name" required /><//>
          <${Field} label="Default"><select name="default_subscription"><option value="opt_in">opt_in</option><option value="opt_out">opt_out</option></select><//>
          <button type="submit">Add topic</button></form>
      </div>
    </div>
  <//>`;
}

export function ContactDetail({ id }: { id: string }) {
  const { data, error } = useData(async () => {
    const [contact, topics, segments] = await Promise.all([get(`/contacts/${seg(id)}`), get(`/contacts/${seg(id)}/topics?limit=100`), get(`/contacts/${seg(id)}/segments?limit=100`)]);
    return { contact, topics: topics.data as any[], segments: segments.data as any[] };
  }, [id]);
  if (error) return html`<${Page} title="Contact"><${ErrorBox} error=${error} /><//>`;
  if (!data) return html`<${Page} title="Contact"><${Loading} /><//>`;
  const { contact } = data;
  return html`<${Page} title=${contact.email}>
    <dl class="facts"><dt>Name</dt><dd>${[contact.first_name, contact.last_name].filter(Boolean).join(' ') || '—'}</dd>
      <dt>Unsubscribed</dt><dd>${contact.unsubscribed ? 'yes' : 'no'}</dd><dt>Created</dt><dd>${when(contact.created_at)}</dd></dl>
    <h2>Subscriptions</h2>
    <table><thead><tr><th scope="col">Topic</th><th scope="col">Subscription</th></tr></thead>
      <tbody>${data.topics.map((t: any) => html`<tr><td>${t.name ?? t.id}</td><td><${Badge} value=${t.subscription} /></td></tr>`)}</tbody></table>
    <h2>Segments</h2>
    <ul class="plain">${data.segments.map((s: any) => html`<li>${s.name}</li>`)}</ul>
  <//>`;
}
