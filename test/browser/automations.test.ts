/**
 * The Automations screen in headless Chromium. An automation made through the API (a trigger on a
 * custom event -> send_email of a published template -> a condition on the event -> add_to_segment
 * when met, contact_update when not) runs once for an event sent with POST /events/send, on the
 * shared runtime's real clock (so the test polls the API until the run has completed). Then, in the
 * console: the list shows it (and the status filter hides it); its page shows the metrics (1 run
 * completed, 1 email sent, each step's counts), the graph with its branches labelled, and the run;
 * the run's page shows each step completed; Stop disables it, Duplicate opens "<name> (copy)",
 * Delete removes the copy. The list pages by the API's cursors; a name and an event name that are
 * HTML show as text. Each screen is checked at both widths and pictured (./screens.ts).
 */
import type { Browser } from 'playwright-core';
import { launchBrowser, openConsole, ownProject, settled, signIn, type Watched } from '../support/browser';
import { verifiedDomain } from '../support/domains';
import { api } from '../support/http';
import { waitFor } from '../support/wait';
import { checkScreen } from './screens';

let browser: Browser;
let key: string;
let watched: Watched;
// names of this run's own, as the other browser suites do
const attempt = Date.now().toString(36);
const name = `Welcome flow ${attempt}`;
const eventName = `signed_up_${attempt}`;
const contactEmail = `success+auto-${attempt}@simulator.amazonses.com`;
let automationId: string;
let runId: string;

beforeAll(async () => {
  [browser, { key }] = await Promise.all([launchBrowser(), ownProject('console automations')]);
  const domain = await verifiedDomain(key, 'automations');
  const template = await api.post(
    '/templates',
    { name: 'Automation welcome', html: '<p>Welcome</p>', from: `hello@${domain}`, subject: 'Welcome aboard' },
    { key },
  );
  expect(template.status).toBe(201);
  expect((await api.post(`/templates/${template.body.id}/publish`, undefined, { key })).status).toBe(200);
  const segment = await api.post('/segments', { name: `Pro ${attempt}` }, { key });
  expect(segment.status).toBe(201);
  const created = await api.post(
    '/automations',
    {
      name,
      status: 'enabled',
      steps: [
        { key: 'start', type: 'trigger', config: { event_name: eventName } },
        { key: 'welcome', type: 'send_email', config: { template: { id: template.body.id } } },
        {
          key: 'check',
          type: 'condition',
          config: { type: 'rule', field: 'event.plan', operator: 'eq', value: 'pro' },
        },
        { key: 'vip', type: 'add_to_segment', config: { segment_id: segment.body.id } },
        { key: 'basic', type: 'contact_update', config: { first_name: { var: 'event.plan' } } },
      ],
      connections: [
        { from: 'start', to: 'welcome' },
        { from: 'welcome', to: 'check' },
        { from: 'check', to: 'vip', type: 'condition_met' },
        { from: 'check', to: 'basic', type: 'condition_not_met' },
      ],
    },
    { key },
  );
  expect(created.status).toBe(201);
  automationId = created.body.id;
  expect(
    (await api.post('/events/send', { event: eventName, email: contactEmail, payload: { plan: 'pro' } }, { key }))
      .status,
  ).toBe(202);
  // the shared runtime runs on the real clock: the run goes through its workers within seconds
  const runs = await waitFor(
    () => api.get(`/automations/${automationId}/runs`, { key }),
    (r) => r.body.data[0]?.status === 'completed',
    30_000,
  );
  runId = runs.body.data[0].id;
  await waitFor(
    () => api.get(`/automations/${automationId}/metrics`, { key }),
    (r) => r.body.runs.completed === 1 && r.body.emails_sent === 1,
  );
  watched = await openConsole(browser);
  await signIn(watched.page, key);
}, 60_000);
afterAll(() => browser?.close());

afterEach(() => {
  expect(watched.dialogs).toEqual([]);
  expect(watched.foreignRequests).toEqual([]);
  expect(watched.cspViolations).toEqual([]);
});

it('lists the automation, and hides it when filtered to disabled ones', async () => {
  const { page } = watched;
  await page.getByRole('link', { name: 'Automations', exact: true }).click();
  const row = page.getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) });
  await row.waitFor();
  expect(await row.locator('.badge').textContent()).toBe('enabled');
  expect(await checkScreen(page, 'automations')).toEqual([]);
  await page.getByLabel('Status').selectOption('disabled');
  await page.getByText('No disabled automations').waitFor();
  await page.getByLabel('Status').selectOption('enabled');
  await row.waitFor();
  await page.getByLabel('Status').selectOption('');
});

it("shows the automation's metrics, its graph with labelled branches, and its run", async () => {
  const { page } = watched;
  await page.getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { name, level: 1 }).waitFor();
  const metric = (id: string) => page.getByTestId(`metric-${id}`).textContent();
  expect([await metric('started'), await metric('completed'), await metric('running'), await metric('failed')]).toEqual(
    ['1', '1', '0', '0'],
  );
  expect(await metric('emails-sent')).toBe('1');
  const counts = page.getByRole('region', { name: 'Step counts' }).locator('tbody tr');
  expect(await counts.allTextContents()).toEqual([
    'starttrigger0100',
    'welcomesend_email0100',
    'checkcondition0100',
    'vipadd_to_segment0100',
    'basiccontact_update0000',
  ]);

  // the graph: a chain from the trigger, then the condition's two branches, each labelled
  const step = (stepKey: string) => page.locator(`li[data-step="${stepKey}"] > .step-card`);
  expect(await step('start').textContent()).toContain(eventName);
  expect(await step('welcome').textContent()).toContain('Template');
  expect(await step('check').textContent()).toContain('event.plan = "pro"');
  expect(await step('basic').textContent()).toContain('first_name = {event.plan}');
  expect(await page.locator('li[data-step="check"] > .branches > li > .branch').allTextContents()).toEqual([
    'condition_met',
    'condition_not_met',
  ]);
  expect(await page.locator('li[data-step="check"] .branches li[data-step="vip"]').count()).toBe(1);

  const runs = page.getByRole('region', { name: 'Runs' });
  await runs.getByRole('link', { name: runId }).waitFor();
  expect(await runs.locator('tbody .badge').allTextContents()).toEqual(['completed']);
  expect(await checkScreen(page, 'automation')).toEqual([]);

  // one status or several: none of the runs failed or was cancelled
  await page.getByLabel('failed').check();
  await page.getByLabel('cancelled').check();
  await page.getByText('No runs match these statuses').waitFor();
  await page.getByLabel('completed').check();
  await runs.getByRole('link', { name: runId }).waitFor();
  for (const status of ['failed', 'cancelled', 'completed']) await page.getByLabel(status).uncheck();
});

it("shows a run's contact, event, version and each step completed", async () => {
  const { page } = watched;
  await page.getByRole('region', { name: 'Runs' }).getByRole('link', { name: runId }).click();
  await page.getByRole('heading', { name: `Run of ${name}`, level: 1 }).waitFor();
  const facts = page.locator('dl.facts');
  expect(await facts.textContent()).toContain(contactEmail);
  expect(await facts.textContent()).toContain(eventName);
  expect(await facts.locator('dt:text-is("Version") + dd').textContent()).toBe('1');
  const steps = page.getByRole('region', { name: 'Run steps' }).locator('tbody tr');
  expect(await steps.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-step')))).toEqual([
    'start',
    'welcome',
    'check',
    'vip',
  ]);
  expect(await steps.locator('.badge').allTextContents()).toEqual(['completed', 'completed', 'completed', 'completed']);
  // a send's output is the email it sent, a link to it; the condition's says it was met
  const emailId = (await steps.nth(1).getByRole('link').textContent())!;
  expect((await api.get(`/emails/${emailId}`, { key })).body.to).toEqual([contactEmail]);
  expect(await steps.nth(2).locator('td').nth(3).textContent()).toBe('met true');
  expect(await checkScreen(page, 'automation-run')).toEqual([]);
});

it('stops the automation, duplicates it into a disabled copy, and deletes the copy', async () => {
  const { page } = watched;
  await page.locator('dl.facts').getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { name, level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Stop' }).click();
  await page.getByRole('button', { name: 'Enable' }).waitFor();
  expect(await page.locator('dl.facts .badge').first().textContent()).toBe('disabled');
  expect((await api.get(`/automations/${automationId}`, { key })).body.status).toBe('disabled');

  await page.getByRole('button', { name: 'Duplicate' }).click();
  await page.getByRole('heading', { name: `${name} (copy)`, level: 1 }).waitFor();
  const copyId = new URL(page.url()).pathname.split('/').pop()!;
  expect(copyId).not.toBe(automationId);
  const copy = await api.get(`/automations/${copyId}`, { key });
  expect(copy.body).toMatchObject({ name: `${name} (copy)`, status: 'disabled' });
  expect(await page.getByTestId('metric-started').textContent()).toBe('0');
  await page.getByText('No runs yet').waitFor();

  await page.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('button', { name: 'Confirm delete' }).click();
  await page.getByRole('heading', { name: 'Automations', level: 1 }).waitFor();
  await page.getByRole('link', { name, exact: true }).waitFor();
  expect(await page.getByRole('link', { name: `${name} (copy)`, exact: true }).count()).toBe(0);
  expect((await api.get(`/automations/${copyId}`, { key })).status).toBe(404);
});

it('shows an automation whose name and trigger event are HTML as text', async () => {
  const payload = `<img src=x onerror="alert('xss-automation')">`;
  const created = await api.post(
    '/automations',
    {
      name: payload,
      steps: [{ key: 'start', type: 'trigger', config: { event_name: `${payload}-${attempt}` } }],
      connections: [],
    },
    { key },
  );
  expect(created.status).toBe(201);
  const { page } = watched;
  // the list may be open already (the delete above lands on it): Refresh reads it again
  await page.getByRole('link', { name: 'Automations', exact: true }).click();
  await page.getByRole('heading', { name: 'Automations', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Refresh' }).click();
  await page.getByRole('link', { name: payload, exact: true }).click();
  await page.getByRole('heading', { name: payload, level: 1 }).waitFor();
  expect(await page.locator('li[data-step="start"] > .step-card').textContent()).toContain(`${payload}-${attempt}`);
  await settled(page);
  expect(await page.locator('img[onerror]').count()).toBe(0);
});

it('pages through the list by the API cursors, newest first', async () => {
  for (let i = 0; i < 21; i++)
    expect(
      (
        await api.post(
          '/automations',
          {
            name: `Paged ${i} ${attempt}`,
            steps: [{ key: 'start', type: 'trigger', config: { event_name: `paged_${i}_${attempt}` } }],
            connections: [],
          },
          { key },
        )
      ).status,
    ).toBe(201);
  const firstPage = (await api.get('/automations?limit=20', { key })).body;
  const secondPage = (await api.get(`/automations?limit=20&after=${firstPage.data.at(-1).id}`, { key })).body;
  const names = (list: any) => list.data.map((a: any) => a.name);
  const { page } = watched;
  await page.getByRole('link', { name: 'Automations', exact: true }).click();
  await page.getByRole('heading', { name: 'Automations', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Refresh' }).click();
  const shown = page.getByRole('region', { name: 'Automations' }).locator('tbody td:first-child');
  const pager = page.getByRole('group', { name: 'Pages of automations' });
  await page.getByRole('link', { name: `Paged 20 ${attempt}`, exact: true }).waitFor();
  expect(await shown.allTextContents()).toEqual(names(firstPage));
  expect(await pager.getByRole('button', { name: 'Newer' }).isDisabled()).toBe(true);

  await pager.getByRole('button', { name: 'Older' }).click();
  await page.getByRole('link', { name: names(secondPage)[0], exact: true }).waitFor();
  expect(await shown.allTextContents()).toEqual(names(secondPage));
  expect(await pager.getByRole('button', { name: 'Older' }).isDisabled()).toBe(true);

  await pager.getByRole('button', { name: 'Newer' }).click();
  await page.getByRole('link', { name: `Paged 20 ${attempt}`, exact: true }).waitFor();
  expect(await shown.allTextContents()).toEqual(names(firstPage));
  expect(await pager.getByRole('button', { name: 'Newer' }).isDisabled()).toBe(true);
});
