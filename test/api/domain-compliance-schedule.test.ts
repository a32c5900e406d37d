/**
 * The scheduled compliance check (issue 40): every domain is checked without anyone asking, the first
 * time right after it is created, then every six hours (COMPLIANCE_CHECK_EVERY_MS), and a rule whose
 * status changed since the last check raises `domain.compliance_changed`, to GET /events and to a
 * webhook. On a runtime of its own with a manual clock: the test moves time, the runtime runs the
 * compliance-check worker at each move (LOCAL_SCHEDULE_INTERVAL_SECONDS 60) and settles the pipeline.
 */
import { COMPLIANCE_CHECK_EVERY_MS } from '../../shared/domains/compliance-schedule';
import { useOwnRuntime } from '../support/own-runtime';
import { WebhookReceiver } from '../support/webhook-receiver';

const runtime = useOwnRuntime({ LOCAL_CLOCK: 'manual', LOCAL_SCHEDULE_INTERVAL_SECONDS: '60' });
const { call } = runtime;

async function setTxt(name: string, values: string[]): Promise<void> {
  expect((await call('PUT', `/_local/dns/txt/${name}`, { values })).status).toBe(200);
}

/** The domain's compliance changes as GET /events lists them, oldest first. */
async function complianceChanges(domainId: string): Promise<Record<string, any>[]> {
  const events = (await call('GET', '/events')).body.data as Record<string, any>[];
  return events
    .filter((e) => e.type === 'domain.compliance_changed' && e.data.object.domain_id === domainId)
    .map((e) => e.data.object)
    .reverse();
}

describe('the scheduled compliance check', () => {
  it('tells a change without anyone asking, every six hours, and stops with the domain', async () => {
    expect(COMPLIANCE_CHECK_EVERY_MS).toBe(6 * 3_600_000);
    const receiver = await new WebhookReceiver().start();
    try {
      expect(
        (await call('POST', '/webhooks', { endpoint: receiver.url, events: ['domain.compliance_changed'] })).status,
      ).toBe(201);
      const name = `sched-${Date.now().toString(36)}.example.net`;
      const created = await call('POST', '/domains', { name });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      await runtime.move({ advance: '2 seconds' }); // the local SES verifies DKIM by then
      expect((await call('POST', `/domains/${id}/verify`)).body.status).toBe('verified');

      // the first run after the create checks it: its statuses recorded, nothing raised
      await runtime.move({ advance: '2 minutes' });
      expect(await complianceChanges(id)).toEqual([]);
      // a GET reads the statuses that check recorded: SPF and DMARC missing
      const first = await call('GET', `/domains/${id}/compliance`);
      expect(first.body.rules.find((r: { rule: string }) => r.rule === 'spf').status).toBe('fail');

      // the records published: nothing happens before the next check is due ...
      await setTxt(`send.${name}`, ['v=spf1 include:amazonses.com ~all']);
      await setTxt(`_dmarc.${name}`, ['v=DMARC1; p=none']);
      await runtime.move({ advance: '5 hours' });
      expect(await complianceChanges(id)).toEqual([]);
      // ... and the check six hours after the last one tells it, once
      await runtime.move({ advance: '2 hours' });
      const changes = await complianceChanges(id);
      expect(changes).toHaveLength(1);
      expect(changes[0]).toMatchObject({ object: 'domain_compliance_change', domain_id: id, name });
      expect(changes[0].changes).toContainEqual({ rule: 'spf', from: 'fail', to: 'pass' });
      expect(changes[0].changes).toContainEqual({ rule: 'dmarc', from: 'fail', to: 'pass' });
      const delivered = receiver.receipts.filter(
        (r) => r.json?.type === 'domain.compliance_changed' && r.json.data.object.domain_id === id,
      );
      expect(delivered).toHaveLength(1);
      expect(delivered[0].json.data.object.changes).toEqual(changes[0].changes);

      // nothing changed: a later check raises nothing
      await runtime.move({ advance: '7 hours' });
      expect(await complianceChanges(id)).toHaveLength(1);

      // deleted: its checks stop with it (a record broken now would have been told at the next check)
      expect((await call('DELETE', `/domains/${id}`)).status).toBe(200);
      await setTxt(`send.${name}`, []);
      await runtime.move({ advance: '7 hours' });
      expect(await complianceChanges(id)).toHaveLength(1);
      expect((await call('GET', `/domains/${id}/compliance`)).status).toBe(404);
    } finally {
      await receiver.stop();
    }
  });
});
