/** Domains for tests that send: made through the API and verified (the local SES verifies identities after a moment). */
import { api } from './http';
import { waitFor } from './wait';

let counter = 0;

/** A new domain of the key's project (the test key's by default), verified, then given `settings` (PATCH: `{click_tracking: true}`); answers its name. */
export async function verifiedDomain(
  key?: string,
  label = 'mail',
  settings?: Record<string, unknown>,
): Promise<string> {
  const name = `${label}-${Date.now().toString(36)}-${counter++}.example.com`;
  const created = await api.post('/domains', { name }, { key });
  expect(created.status).toBe(201);
  await waitFor(
    () => api.post(`/domains/${created.body.id}/verify`, undefined, { key }),
    (r) => r.body.status === 'verified',
  );
  if (settings) expect((await api.patch(`/domains/${created.body.id}`, settings, { key })).status).toBe(200);
  return name;
}
