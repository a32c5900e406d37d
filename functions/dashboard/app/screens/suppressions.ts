import { useState } from 'preact/hooks';
import { del, get, post, qs, seg } from '../api';
import { Badge, ErrorBox, Field, formValues, html, Loading, Page, useAction, useData, when } from '../ui';

export function Suppressions() {
  const [source, setSource] = useState('');
  const { data, error, reload } = useData(() => get(`/suppressions${qs({ limit: 100, source })}`), [source]);
  const action = useAction();
  const add = (event: Event) => {
    const form = event.currentTarget as HTMLFormElement;
    const v = formValues(event);
    return action.run(async () => (await post('/suppressions', { email: v.email, ...(v.reason ? { reason: v.reason } : {}) }), form.reset(), reload()));
  };
  return html`<${Page} title="Suppressions" actions=${html`<button type="button" onClick=${reload}>Refresh</button>`}>
    <form class="filters" onSubmit=${(e: Event) => e.preventDefault()}>
      <${Field} label="Source"><select value=${source} onChange=${(e: any) => setSource(e.currentTarget.value)}><option value="">Any</option><option value="bounce">bounce</option><option value="complaint">complaint</option><option value="manual">manual</option></select><//>
    </form>
    <${ErrorBox} error=${action.error || error} />${data ? null : html`<${Loading} />`}
    <table><thead><tr><th scope="col">Email</th><th scope="col">Source</th><th scope="col">Reason</th><th scope="col">Added</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${(data?.data ?? []).map(
        (s: any) => html`<tr><td>${s.email}</td><td><${Badge} value=${s.source} /></td><td>${s.reason ?? s.subtype ?? ''}</td><td>${when(s.created_at)}</td>
          <td><button type="button" class="small danger" aria-label=${`Remove ${s.email}`} onClick=${() => action.run(async () => (await del(`/suppressions/${seg(s.id)}`), reload()))}>Remove</button></td></tr>`,
      )}</tbody></table>
    <form class="inline" onSubmit=${add}><${Field} label="Email"><input name="email" type="email" required /><//><${Field} label="Reason"><input name="reason" /><//><button type="submit" disabled=${action.pending}>Suppress</button></form>
  <//>`;
}
