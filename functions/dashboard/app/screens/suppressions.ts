import { useState } from 'preact/hooks';
import { del, get, post, qs, seg } from '../api';
import { Badge, Empty, ErrorBox, Field, formValues, html, loaded, Page, Table, useAction, useData, when } from '../ui';

export function Suppressions() {
  const [source, setSource] = useState('');
  const state = useData(() => get(`/suppressions${qs({ limit: 100, source })}`), [source]);
  const action = useAction();
  const add = (event: Event) => {
    const form = event.currentTarget as HTMLFormElement;
    const v = formValues(event);
    return action.run(
      async () => (
        await post('/suppressions', { email: v.email, ...(v.reason ? { reason: v.reason } : {}) }),
        form.reset(),
        state.reload()
      ),
    );
  };
  return html`<${Page} title="Suppressions" lead="Addresses no email goes to: hard bounces and complaints are added on their own; add others by hand." actions=${html`<button type="button" class="secondary" onClick=${state.reload}>Refresh</button>`}>
    <form class="filters" onSubmit=${(e: Event) => e.preventDefault()}>
      <${Field} label="Source"><select value=${source} onChange=${(e: any) => setSource(e.currentTarget.value)}><option value="">Any</option><option value="bounce">bounce</option><option value="complaint">complaint</option><option value="manual">manual</option></select><//>
    </form>
    <${ErrorBox} error=${action.error} />
    ${loaded(
      state,
      (data) => html`<${Table}
        label="Suppressions"
        columns=${['Email', 'Source', 'Reason', 'Added', '']}
        empty=${html`<${Empty} title=${source ? `No ${source} suppressions` : 'No suppressed addresses'}>${source ? null : 'An address that bounces hard or complains shows up here.'}<//>`}
        rows=${data.data.map(
          (
            s: any,
          ) => html`<tr><td class="wrap">${s.email}</td><td><${Badge} value=${s.source} /></td><td class="wrap">${s.reason ?? s.subtype ?? ''}</td><td>${when(s.created_at)}</td>
          <td><button type="button" class="small secondary" aria-label=${`Remove ${s.email}`} onClick=${() => action.run(async () => (await del(`/suppressions/${seg(s.id)}`), state.reload()))}>Remove</button></td></tr>`,
        )} />`,
    )}
    <h2>Suppress an address</h2>
    <form class="inline card" onSubmit=${add}><${Field} label="Email"><input name="email" type="email" required /><//><${Field} label="Reason"><input name="reason" /><//><button type="submit" disabled=${action.pending}>Suppress</button></form>
  <//>`;
}
