import { get, patch, post, seg } from '../api';
import { navigate } from '../router';
import { Badge, CopyButton, ErrorBox, Field, formValues, html, Link, Loading, Page, useAction, useData } from '../ui';

export function Domains() {
  const { data, error, reload } = useData(() => get('/domains?limit=100'));
  const action = useAction();
  const add = (event: Event) => {
    const { name } = formValues(event);
    return action.run(async () => {
      const domain = await post('/domains', { name });
      reload();
      navigate(`/domains/${domain.id}`);
    });
  };
  return html`<${Page} title="Domains">
    <form class="inline" onSubmit=${add}><${Field} label="Domain name"><input name="name" required placeholder="example.com" /><//><button type="submit" disabled=${action.pending}>Add domain</button></form>
    <${ErrorBox} error=${action.error || error} />
    ${data ? null : html`<${Loading} />`}
    <table><thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Region</th></tr></thead>
      <tbody>${(data?.data ?? []).map((d: any) => html`<tr><td><${Link} to=${`/domains/${d.id}`}>${d.name}<//></td><td><${Badge} value=${d.status} /></td><td>${d.region}</td></tr>`)}</tbody></table>
  <//>`;
}

/** A domain: its DNS records to copy, verification, capabilities and tracking (PATCH /domains/{id}). */
export function DomainDetail({ id }: { id: string }) {
  const { data: domain, error, reload } = useData(() => get(`/domains/${seg(id)}`), [id]);
  const action = useAction();
  if (error) return html`<${Page} title="Domain"><${ErrorBox} error=${error} /><//>`;
  if (!domain) return html`<${Page} title="Domain"><${Loading} /><//>`;
  const act = (fn: () => Promise<unknown>) => action.run(async () => (await fn(), reload()));
  const toggle = (field: 'open_tracking' | 'click_tracking') => (e: any) => act(() => patch(`/domains/${seg(id)}`, { [field]: e.currentTarget.checked }));
  return html`<${Page} title=${domain.name} actions=${html`<button type="button" disabled=${action.pending} onClick=${() => act(() => post(`/domains/${seg(id)}/verify`))}>Verify DNS records</button>`}>
    <${ErrorBox} error=${action.error} />
    <p>Status <${Badge} value=${domain.status} /> · sending <${Badge} value=${domain.capabilities?.sending} /> · receiving <${Badge} value=${domain.capabilities?.receiving} /></p>
    <h2>DNS records</h2>
    <table class="records"><thead><tr><th scope="col">Record</th><th scope="col">Type</th><th scope="col">Name</th><th scope="col">Value</th><th scope="col">Priority</th><th scope="col">Status</th></tr></thead>
      <tbody>${domain.records.map(
        (r: any, i: number) => html`<tr>
          <td>${r.record}</td><td>${r.type}</td>
          <td><code>${r.name}</code> <${CopyButton} text=${r.name} label=${`Copy the name of record ${i + 1}`} /></td>
          <td class="wrap"><code>${r.value}</code> <${CopyButton} text=${r.value} label=${`Copy the value of record ${i + 1}`} /></td>
          <td>${r.priority ?? ''}</td><td><${Badge} value=${r.status} /></td></tr>`,
      )}</tbody></table>
    <h2>Tracking</h2>
    <label class="check"><input type="checkbox" checked=${domain.open_tracking} onChange=${toggle('open_tracking')} /> Open tracking</label>
    <label class="check"><input type="checkbox" checked=${domain.click_tracking} onChange=${toggle('click_tracking')} /> Click tracking</label>
  <//>`;
}
