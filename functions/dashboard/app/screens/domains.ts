import { get, patch, post, seg } from '../api';
import { navigate } from '../router';
import {
  Badge,
  CopyButton,
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
} from '../ui';

export function Domains() {
  const state = useData(() => get('/domains?limit=100'));
  const action = useAction();
  const add = (event: Event) => {
    const { name } = formValues(event);
    return action.run(async () => {
      const domain = await post('/domains', { name });
      navigate(`/domains/${domain.id}`);
    });
  };
  return html`<${Page} title="Domains" lead="Domains you send from. Each gets DNS records to publish (DKIM, SPF, MX); mail goes out once they verify.">
    <form class="inline card" onSubmit=${add}><${Field} label="Domain name"><input name="name" required placeholder="example.com" /><//><button type="submit" disabled=${action.pending}>Add domain</button></form>
    <${ErrorBox} error=${action.error} />
    ${loaded(
      state,
      (data) => html`<${Table}
        label="Domains"
        columns=${['Name', 'Status', 'Region']}
        empty=${html`<${Empty} title="No domains yet">Add the domain you send from; its DNS records are shown next.<//>`}
        rows=${data.data.map((d: any) => html`<tr><td><${Link} to=${`/domains/${d.id}`}>${d.name}<//></td><td><${Badge} value=${d.status} /></td><td>${d.region}</td></tr>`)} />`,
    )}
  <//>`;
}

/** A domain: its DNS records to copy, verification, capabilities and tracking (PATCH /domains/{id}). */
export function DomainDetail({ id }: { id: string }) {
  const state = useData(() => get(`/domains/${seg(id)}`), [id]);
  const action = useAction();
  const act = (fn: () => Promise<unknown>) => action.run(async () => (await fn(), state.reload()));
  const toggle = (field: 'open_tracking' | 'click_tracking') => (e: any) =>
    act(() => patch(`/domains/${seg(id)}`, { [field]: e.currentTarget.checked }));
  const actions = state.data
    ? html`<${Link} to=${`/domains/${id}/deliverability`}>Deliverability<//> <button type="button" disabled=${action.pending} onClick=${() => act(() => post(`/domains/${seg(id)}/verify`))}>Verify DNS records</button>`
    : null;
  return html`<${Page} title=${state.data?.name ?? 'Domain'} actions=${actions}>
    <${ErrorBox} error=${action.error} />
    ${loaded(
      state,
      (domain) => html`
    <p class="status-line">Status <${Badge} value=${domain.status} /> · sending <${Badge} value=${domain.capabilities?.sending} /> · receiving <${Badge} value=${domain.capabilities?.receiving} /></p>
    <h2>DNS records</h2>
    <p class="muted">Publish these at your DNS provider, then verify. Records can take a few minutes to an hour to be seen.</p>
    <${Table}
      label="DNS records"
      columns=${['Record', 'Type', 'Name', 'Value', 'Priority', 'Status']}
      rows=${domain.records.map(
        (r: any, i: number) => html`<tr>
          <td>${r.record}</td><td>${r.type}</td>
          <td><code>${r.name}</code> <${CopyButton} text=${r.name} label=${`Copy the name of record ${i + 1}`} /></td>
          <td class="wrap"><code>${r.value}</code> <${CopyButton} text=${r.value} label=${`Copy the value of record ${i + 1}`} /></td>
          <td>${r.priority ?? ''}</td><td><${Badge} value=${r.status} /></td></tr>`,
      )} />
    <h2>Tracking</h2>
    <label class="check"><input type="checkbox" checked=${domain.open_tracking} onChange=${toggle('open_tracking')} /> Open tracking</label>
    <label class="check"><input type="checkbox" checked=${domain.click_tracking} onChange=${toggle('click_tracking')} /> Click tracking</label>`,
    )}
  <//>`;
}
