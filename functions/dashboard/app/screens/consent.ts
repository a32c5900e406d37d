/**
 * The OAuth consent page: /dashboard/oauth/authorize?<the parameters of GET /oauth/authorize>.
 *
 * 1. Signed in with a full-access API key of the project (the sign-in form comes first otherwise).
 * 2. The client is looked up in GET /oauth/clients by its `client_id`, and `redirect_uri` checked
 *    against its registered URIs with the server's own rule (shared/access/redirect-uri.ts). An
 *    unknown client or a redirect URI it did not register is shown as an error and NEVER
 *    redirected to (RFC 6749 §4.1.2.1): the page would otherwise be an open redirector.
 * 3. The page shows the client's name, the scope and the redirect URI's host.
 * 4. Approve: GET /oauth/authorize (the JSON handoff) issues the code, then the browser goes to
 *    redirect_uri with `code` and `state`. If the server refuses another parameter (say the
 *    code_challenge), it goes with `error=invalid_request` instead.
 * 5. Deny: redirect_uri with `error=access_denied` (and `state`); no code is issued.
 */
import { useState } from 'preact/hooks';
import { redirectUriMatches } from '../../../../shared/access/redirect-uri';
import { ApiFailure, get, qs } from '../api';
import { describe, ErrorBox, html, Loading, Page, useData } from '../ui';

const SCOPE_TEXT: Record<string, string> = {
  sending_access: 'send emails on behalf of this project',
  full_access: 'manage everything in this project: emails, domains, audience, broadcasts, templates, webhooks',
};

async function findClient(clientId: string): Promise<any | undefined> {
  let after: string | undefined;
  for (let page = 0; page < 20; page++) {
    const list = await get(`/oauth/clients${qs({ limit: 100, after })}`);
    const found = list.data.find((c: any) => c.client_id === clientId);
    if (found || !list.has_more) return found;
    after = list.data[list.data.length - 1].id;
  }
  return undefined;
}

function redirectTo(redirectUri: string, params: Record<string, string | null | undefined>): void {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params))
    if (value !== undefined && value !== null) url.searchParams.set(name, value);
  location.assign(url.toString());
}

export function Consent({ query }: { query: URLSearchParams }) {
  const clientId = query.get('client_id') ?? '';
  const redirectUri = query.get('redirect_uri') ?? '';
  const state = query.get('state');
  const scope = query.get('scope') ?? 'sending_access';
  const [working, setWorking] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();
  const { data, error } = useData(async () => {
    if (!clientId || !redirectUri) throw new Error('The authorization request names no client_id or redirect_uri.');
    const client = await findClient(clientId);
    if (!client) throw new Error('Unknown client: no OAuth client of this project has this client_id.');
    if (!client.redirect_uris.some((registered: string) => redirectUriMatches(registered, redirectUri)))
      throw new Error('The redirect URI is not one this client registered.');
    return client;
  }, [clientId, redirectUri]);
  if (error)
    return html`<${Page} title="Authorization failed"><${ErrorBox} error=${error} /><p>Nothing was shared. You can close this page.</p><//>`;
  if (!data) return html`<${Page} title="Authorize"><${Loading} /><//>`;
  const approve = async () => {
    setWorking(true);
    try {
      const answer = await get(`/oauth/authorize${location.search}`);
      redirectTo(answer.redirect_uri, { code: answer.code, state: answer.state });
    } catch (failed) {
      setWorking(false);
      const fields =
        failed instanceof ApiFailure && Array.isArray(failed.body?.errors)
          ? failed.body.errors.map((e: any) => e.path)
          : [];
      if (
        failed instanceof ApiFailure &&
        failed.status === 422 &&
        !fields.some((f: string) => f === 'client_id' || f === 'redirect_uri')
      ) {
        redirectTo(redirectUri, { error: 'invalid_request', error_description: describe(failed), state });
      } else setFailure(describe(failed));
    }
  };
  const host = new URL(redirectUri).host;
  return html`<${Page} title=${`Authorize ${data.name}`}>
    <div class="consent card">
      <p><strong>${data.name}</strong> asks to <strong>${SCOPE_TEXT[scope] ?? scope}</strong> (scope <code>${scope}</code>).</p>
      <p>You will be sent back to <strong>${host}</strong>.</p>
      <${ErrorBox} error=${failure} />
      <div class="actions">
        <button type="button" disabled=${working} onClick=${approve}>Approve</button>
        <button type="button" class="secondary" disabled=${working} onClick=${() => redirectTo(redirectUri, { error: 'access_denied', state })}>Deny</button>
      </div>
    </div>
  <//>`;
}
