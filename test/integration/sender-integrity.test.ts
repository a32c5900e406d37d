/**
 * No email stranded, none sent from a domain that is no longer the project's: through the real
 * API, the runtime's due-email dispatcher (every second in tests) and its sender.
 *
 * - Deleting a domain cancels the project's emails still waiting to go out from it.
 * - An email that is still waiting when its domain is gone (here: its pending entry removed, as
 *   if the cancel had run out of time) and the name now another project's, verified, is refused
 *   by the sender's own check: `failed` with the reason, never in the mail viewer.
 * - A sender killed between its claim and recording the send leaves a claim whose lease ends:
 *   the email ends `failed` with the reason, and `email.failed` says so.
 * - A batch's staged emails left by a request that died are discarded before their commit and
 *   published after it.
 */
import { UNCONFIRMED_SEND } from '../../shared/emails/sender';
import type { EmailItem } from '../../shared/emails/emails';
import { putEmailContent } from '../../shared/emails/content';
import * as keys from '../../shared/platform/db/keys';
import { del, getItem, put, transact, update } from '../../shared/platform/db/table';
import { newId } from '../../shared/platform/ids';
import { api } from '../support/http';
import { createOtherProject, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';
import { uniqueName } from '../support/unique';

const runtime = useRuntimeTable();
const LEASE_MS = 2 * 60 * 1000; // SEND_LEASE_MS

const unique = (label: string) => `${uniqueName(label)}.example.com`;

async function verifiedDomain(key: string, name = unique('integrity')): Promise<{ id: string; name: string }> {
  const created = await api.post('/domains', { name }, { key });
  expect(created.status).toBe(201);
  await waitFor(
    () => api.post(`/domains/${created.body.id}/verify`, undefined, { key }),
    (r) => r.body.status === 'verified',
  );
  return { id: created.body.id, name };
}

const emailOf = (id: string, key: string) => api.get(`/emails/${id}`, { key }).then((r) => r.body);
const eventsOf = async (id: string, key: string) =>
  (
    (await api.get('/events', { key })).body.data as { type: string; data: { object: Record<string, unknown> } }[]
  ).filter((e) => e.data.object.id === id);

async function mailViewerSubjects(): Promise<string[]> {
  const store = await fetch(`${runtime.mailViewerUrl}/store`).then(
    (r) => r.json() as Promise<{ emails: { subject: string }[] }>,
  );
  return store.emails.map((e) => e.subject);
}

describe('a domain deleted while its mail waits', () => {
  it("cancels the project's scheduled and queued emails from it, with the reason", async () => {
    const a = await createOtherProject();
    const domain = await verifiedDomain(a.key);
    const later = new Date(Date.now() + 60 * 60 * 1000).toISOString();
    const scheduled = await api.post(
      '/emails',
      { from: `news@${domain.name}`, to: 'r@example.com', subject: 'scheduled', text: 'x', scheduled_at: later },
      { key: a.key },
    );
    expect(scheduled.status).toBe(200);

    expect((await api.delete(`/domains/${domain.id}`, { key: a.key })).status).toBe(200);
    expect(await emailOf(scheduled.body.id, a.key)).toMatchObject({ last_event: 'canceled' });
    const canceled = (await eventsOf(scheduled.body.id, a.key)).find((e) => e.type === 'email.canceled');
    expect(canceled?.data.object).toMatchObject({
      last_event: 'canceled',
      cancel_reason: `the domain ${domain.name} was deleted before the email was sent`,
    });
  });

  it("never sends it from the name once another project owns it: the sender's check fails it with the reason", async () => {
    const a = await createOtherProject();
    const b = await createOtherProject();
    const domain = await verifiedDomain(a.key);
    const subject = `From a deleted domain ${Date.now()}`;
    const at = new Date(Date.now() + 6000).toISOString();
    const res = await api.post(
      '/emails',
      { from: `news@${domain.name}`, to: 'r@example.com', subject, text: 'x', scheduled_at: at },
      { key: a.key },
    );
    expect(res.status).toBe(200);
    // as if the delete had run out of time before this email: its pending entry is gone, so the delete leaves it scheduled
    await transact([del(keys.pendingEmailFrom(a.projectId, domain.name, res.body.id))]);
    expect((await api.delete(`/domains/${domain.id}`, { key: a.key })).status).toBe(200);
    expect((await emailOf(res.body.id, a.key)).last_event).toBe('scheduled');
    await verifiedDomain(b.key, domain.name); // B claims the name and verifies it

    const email = await waitFor(
      () => emailOf(res.body.id, a.key),
      (e) => e.last_event !== 'scheduled',
      20_000,
    );
    expect(email.last_event).toBe('failed');
    const failed = (await eventsOf(res.body.id, a.key)).find((e) => e.type === 'email.failed');
    expect(failed?.data.object.failure_reason).toBe(
      `not sent: The domain ${domain.name} is not a domain of this project`,
    );
    expect((await eventsOf(res.body.id, a.key)).map((e) => e.type)).not.toContain('email.sending');
    expect(await mailViewerSubjects()).not.toContain(subject);
  }, 40_000);
});

describe('a sender killed between its claim and the send', () => {
  it("ends the email `failed` with the reason once the claim's lease has passed; it is not sent", async () => {
    const a = await createOtherProject();
    const domain = await verifiedDomain(a.key);
    const subject = `Claimed by a dead sender ${Date.now()}`;
    const emailId = newId();
    const claimedAt = new Date(Date.now() - LEASE_MS - 1000).toISOString();
    const email: EmailItem = {
      object: 'email',
      id: emailId,
      project_id: a.projectId,
      livemode: true,
      message_id: null,
      from: `news@${domain.name}`,
      to: ['r@example.com'],
      cc: [],
      bcc: [],
      reply_to: [],
      subject,
      tags: [],
      last_event: 'queued',
      scheduled_at: null,
      created_at: claimedAt,
    };
    // accepted, then claimed as the sender claims (sending, when, a due entry at the lease's end),
    // and the sender killed right after: nothing more is written
    await putEmailContent(a.projectId, emailId, { html: null, text: 'x', headers: {} });
    await transact([put({ ...keys.email(a.projectId, emailId), type: 'email', ...email })]);
    await transact([
      update(keys.email(a.projectId, emailId), {
        set: {
          last_event: 'sending',
          sending_at: claimedAt,
          send_attempts: 1,
          ...keys.emailDue(a.projectId, emailId, new Date(Date.parse(claimedAt) + LEASE_MS).toISOString()),
        },
      }),
    ]);

    const ended = await waitFor(
      () => emailOf(emailId, a.key),
      (e) => e.last_event !== 'sending',
      15_000,
    );
    expect(ended.last_event).toBe('failed');
    const failed = (await eventsOf(emailId, a.key)).find((e) => e.type === 'email.failed');
    expect(failed?.data.object.failure_reason).toBe(UNCONFIRMED_SEND);
    expect(await mailViewerSubjects()).not.toContain(subject);
    const item = await getItem(keys.email(a.projectId, emailId));
    expect(item?.GSI1PK).toBeUndefined(); // off the dispatcher's index
  }, 30_000);

  it('leaves a claim within its lease alone (a live sender holds it)', async () => {
    const { sendQueuedEmail } = await import('../../shared/emails/sender');
    const projectId = newId();
    const emailId = newId();
    await transact([
      put({
        ...keys.email(projectId, emailId),
        type: 'email',
        id: emailId,
        project_id: projectId,
        livemode: false,
        from: 'a@x.example.com',
        to: ['r@example.com'],
        last_event: 'sending',
        sending_at: new Date().toISOString(),
      }),
    ]);
    expect(await sendQueuedEmail(projectId, emailId)).toBe('skipped');
    expect((await getItem(keys.email(projectId, emailId)))?.last_event).toBe('sending');
  });
});

describe('a staged batch left behind by its request', () => {
  async function staged(batchState?: 'committed') {
    const a = await createOtherProject();
    const domain = await verifiedDomain(a.key);
    const batchId = newId();
    const emailId = newId();
    const email: EmailItem = {
      object: 'email',
      id: emailId,
      project_id: a.projectId,
      livemode: true,
      message_id: null,
      from: `news@${domain.name}`,
      to: ['r@example.com'],
      cc: [],
      bcc: [],
      reply_to: [],
      subject: `Staged ${batchState ?? 'never committed'} ${Date.now()}`,
      tags: [],
      last_event: 'queued',
      scheduled_at: null,
      created_at: new Date().toISOString(),
    };
    // staged by a request that died (its lease already over), then committed or not
    const past = new Date(Date.now() - 1000).toISOString();
    await putEmailContent(a.projectId, emailId, { html: null, text: 'x', headers: {} });
    await transact([
      put({
        ...keys.stagedEmail(a.projectId, emailId),
        ...keys.emailDue(a.projectId, emailId, past),
        type: 'staged_email',
        project_id: a.projectId,
        id: emailId,
        batch_id: batchId,
        email,
      }),
      ...(batchState
        ? [
            put({
              ...keys.emailBatch(a.projectId, batchId),
              type: 'email_batch',
              project_id: a.projectId,
              state: batchState,
              email_ids: [emailId],
            }),
          ]
        : []),
    ]);
    return { a, batchId, emailId };
  }

  it('discards one whose batch never committed, and marks the batch abandoned so it never will', async () => {
    const { a, batchId, emailId } = await staged();
    await waitFor(
      () => getItem(keys.stagedEmail(a.projectId, emailId)),
      (item) => item === undefined,
    );
    expect((await api.get(`/emails/${emailId}`, { key: a.key })).status).toBe(404);
    expect(await getItem(keys.emailBatch(a.projectId, batchId))).toMatchObject({ state: 'abandoned' });
  });

  it('publishes one whose batch committed: the email exists and is sent', async () => {
    const { a, emailId } = await staged('committed');
    const email = await waitFor(
      () => api.get(`/emails/${emailId}`, { key: a.key }),
      (r) => r.status === 200 && r.body.last_event === 'sent',
      20_000,
    );
    expect(email.body.last_event).toBe('sent');
    expect(await getItem(keys.stagedEmail(a.projectId, emailId))).toBeUndefined();
  }, 30_000);
});
