import { useState } from 'preact/hooks';
import { del, get, post, seg } from '../api';
import { Badge, CopyButton, ErrorBox, Field, formValues, html, Loading, Page, useAction, useData, when } from '../ui';

export function ApiKeys() {
  const { data, error, reload } = useData(() => get('/api-keys?limit=100'));
  const action = useAction();
  const [created, setCreated] = useState<{ name: string; token: string } | undefined>();
  // a second click confirms: no browser dialog
  const [confirming, setConfirming] = useState<string | undefined>();
  const create = (event: Event) => {
    const form = event.currentTarget as HTMLFormElement;
    const v = formValues(event);
    return action.run(async () => {
      const key = await post('/api-keys', { name: v.name, permission: v.permission });
      setCreated({ name: v.name, token: key.token });
      form.reset();
      reload();
    });
  };
  return html`<${Page} title="API keys">
    <${ErrorBox} error=${action.error || error} />
    ${created ? html`<div class="notice" role="status"><p>Key “${created.name}” (shown once): <code data-testid="new-key">${created.token}</code> <${CopyButton} text=${created.token} label="Copy the new key" /></p></div>` : null}
    <form class="inline" onSubmit=${create}>
      <${Field} label="Key name"><input name="name" required /><//>
      <${Field} label="Permission"><select name="permission"><option value="full_access">full_access</option><option value="sending_access">sending_access</option></select><//>
      <button type="submit" disabled=${action.pending}>Create key</button></form>
    ${data ? null : html`<${Loading} />`}
    <table><thead><tr><th scope="col">Name</th><th scope="col">Permission</th><th scope="col">Mode</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${(data?.data ?? []).map(
        (k: any) => html`<tr><td>${k.name}</td><td><${Badge} value=${k.permission} /></td><td>${k.mode}</td><td>${when(k.created_at)}</td><td>${when(k.last_used_at)}</td>
          <td>${
            confirming === k.id
              ? html`<button type="button" class="small danger" aria-label=${`Confirm revoking ${k.name}`} onClick=${() => action.run(async () => (await del(`/api-keys/${seg(k.id)}`), setConfirming(undefined), reload()))}>Confirm revoke</button>`
              : html`<button type="button" class="small danger" aria-label=${`Revoke ${k.name}`} onClick=${() => setConfirming(k.id)}>Revoke</button>`
          }</td></tr>`,
      )}</tbody></table>
  <//>`;
}
