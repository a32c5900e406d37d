/**
 * API keys: create one (its token shown once), in live or test mode, and revoke one.
 * A live key may make a test key of its project (`mode: "test"`, POST /api-keys); a test key makes
 * only test keys (the API answers 422 to a live one, shown as the form's error). The selector starts
 * on the signed-in key's own mode, the API's default. GET /api-keys lists the keys of the caller's
 * mode only (a live key never sees the sandbox), so a test key made here is listed, and revoked,
 * from a console signed in with a test key: the page says so.
 */
import { useState } from 'preact/hooks';
import { del, get, post, seg, session } from '../api';
import {
  Badge,
  CopyButton,
  Empty,
  ErrorBox,
  Field,
  formValues,
  html,
  loaded,
  Page,
  Table,
  useAction,
  useData,
  when,
} from '../ui';

export function ApiKeys() {
  const state = useData(() => get('/api-keys?limit=100'));
  const action = useAction();
  const [created, setCreated] = useState<{ name: string; token: string; mode: string } | undefined>();
  // a second click confirms: no browser dialog
  const [confirming, setConfirming] = useState<string | undefined>();
  const ownMode = session.token()?.startsWith('es_test_') ? 'test' : 'live';
  const create = (event: Event) => {
    const form = event.currentTarget as HTMLFormElement;
    const v = formValues(event);
    return action.run(async () => {
      const key = await post('/api-keys', { name: v.name, permission: v.permission, mode: v.mode });
      setCreated({ name: v.name, token: key.token, mode: v.mode });
      form.reset();
      state.reload();
    });
  };
  const revoke = (k: any) =>
    action.run(async () => (await del(`/api-keys/${seg(k.id)}`), setConfirming(undefined), state.reload()));
  return html`<${Page} title="API keys" lead="Keys authenticate calls to the API. Live keys send real mail; test keys work in the project's sandbox, where mail never leaves and live keys see none of it.">
    <${ErrorBox} error=${action.error} />
    ${
      created
        ? html`<div class="notice" role="status"><p>${created.mode === 'test' ? 'Test' : 'Live'} key “${created.name}” (shown once, copy it now): <code data-testid="new-key">${created.token}</code> <${CopyButton} text=${created.token} label="Copy the new key" /></p></div>`
        : null
    }
    <form class="inline card" onSubmit=${create}>
      <${Field} label="Key name"><input name="name" required maxlength="256" /><//>
      <${Field} label="Permission"><select name="permission"><option value="full_access">Full access</option><option value="sending_access">Sending access</option></select><//>
      <${Field} label="Mode"><select name="mode" value=${ownMode}><option value="live">Live</option><option value="test">Test</option></select><//>
      <button type="submit" disabled=${action.pending}>Create key</button></form>
    <h2>${ownMode === 'test' ? 'Test' : 'Live'} keys</h2>
    <p class="muted">The keys of the mode this tab is signed in with: the ${ownMode === 'test' ? 'live keys show when signed in with a live key' : 'test keys show when signed in with a test key'}.</p>
    ${loaded(
      state,
      (data) => html`<${Table}
        label="API keys"
        columns=${['Name', 'Permission', 'Mode', 'Created', 'Last used', '']}
        empty=${html`<${Empty} title="No API keys">Create one above; its token is shown once.<//>`}
        rows=${data.data.map(
          (
            k: any,
          ) => html`<tr><td>${k.name}</td><td><${Badge} value=${k.permission} /></td><td><${Badge} value=${k.mode} /></td><td>${when(k.created_at)}</td><td>${when(k.last_used_at)}</td>
          <td>${
            confirming === k.id
              ? html`<button type="button" class="small danger" aria-label=${`Confirm revoking ${k.name}`} onClick=${() => revoke(k)}>Confirm revoke</button>`
              : html`<button type="button" class="small danger" aria-label=${`Revoke ${k.name}`} onClick=${() => setConfirming(k.id)}>Revoke</button>`
          }</td></tr>`,
        )} />`,
    )}
  <//>`;
}
