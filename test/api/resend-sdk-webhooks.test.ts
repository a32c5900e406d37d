/**
 * Webhook payloads a Resend handler can read: deliveries verified with the official SDK's
 * `resend.webhooks.verify`, then read by a handler typed with the SDK's `WebhookEventPayload`, at
 * Resend's paths (`data.email_id`, `data.bounce.subType`, `data.tags.<name>`...), while the
 * contract's `data.object` stays beside them. Real mail through the local SES (its mailbox
 * simulator bounces `bounce@simulator.amazonses.com`). A project of its own.
 */
import { Resend, type WebhookEventPayload } from 'resend';
import { verifiedDomain } from '../support/domains';
import { baseUrl } from '../support/http';
import { createOtherProject, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';
import { type Receipt, WebhookReceiver } from '../support/webhook-receiver';

useRuntimeTable();

function data<T>(result: { data: T | null; error: unknown }): T {
  expect(result.error).toBeNull();
  return result.data as T;
}

/** The handler a Resend user writes: only what the SDK's types let it read. */
function handle(event: WebhookEventPayload): Record<string, unknown> {
  switch (event.type) {
    case 'email.sent':
    case 'email.delivered':
      return {
        type: event.type,
        email_id: event.data.email_id,
        from: event.data.from,
        to: event.data.to,
        subject: event.data.subject,
        message_id: event.data.message_id,
        tags: event.data.tags,
        template_id: event.data.template_id,
      };
    case 'email.bounced':
      return { type: event.type, email_id: event.data.email_id, bounce: event.data.bounce };
    case 'email.suppressed':
      return { type: event.type, email_id: event.data.email_id, suppressed: event.data.suppressed };
    case 'domain.created':
      return {
        type: event.type,
        id: event.data.id,
        name: event.data.name,
        region: event.data.region,
        records: event.data.records.map((r) => r.type),
      };
    default:
      return { type: event.type };
  }
}

describe('webhook payloads through the official SDK', () => {
  it('carries the email and domain fields at Resend paths, verified by resend.webhooks.verify', async () => {
    const project = await createOtherProject();
    const sdk = new Resend(project.key, { baseUrl: baseUrl() });
    const rx = await new WebhookReceiver().start();
    try {
      const hook = data(
        await sdk.webhooks.create({
          endpoint: rx.url,
          events: ['email.sent', 'email.delivered', 'email.bounced', 'email.suppressed', 'domain.created'],
        }),
      );
      const domain = await verifiedDomain(project.key, 'hooks');
      const template = data(
        await sdk.templates.create({ name: 'hook template', html: '<p>Hi {{{NAME}}}</p>', subject: 'Hello' }),
      );
      data(await sdk.templates.publish(template.id));
      const sent = data(
        await sdk.emails.send({
          from: `Hooks <hooks@${domain}>`,
          to: 'reader@example.com',
          template: { id: template.id, variables: { NAME: 'Ada' } },
          tags: [{ name: 'campaign', value: 'welcome' }],
        }),
      );
      const bounced = data(
        await sdk.emails.send({
          from: `hooks@${domain}`,
          to: 'bounce@simulator.amazonses.com',
          subject: 'bounce me',
          text: 'x',
        }),
      );
      // the bounce put the address on the suppression list: the next email to it is suppressed
      await waitFor(
        async () => rx.receipts.filter((r) => r.json?.type === 'email.bounced').length,
        (n) => n === 1,
        20_000,
      );
      const suppressed = data(
        await sdk.emails.send({
          from: `hooks@${domain}`,
          to: 'bounce@simulator.amazonses.com',
          subject: 'suppressed',
          text: 'x',
        }),
      );

      const verify = (receipt: Receipt) => {
        const header = (name: string) => String(receipt.headers[`svix-${name}`]);
        return sdk.webhooks.verify({
          payload: receipt.body,
          headers: { id: header('id'), timestamp: header('timestamp'), signature: header('signature') },
          webhookSecret: hook.signing_secret,
        });
      };
      const read = async (type: string, emailId?: string) => {
        const [receipt] = await waitFor(
          async () =>
            rx.receipts.filter((r) => r.json?.type === type && (!emailId || r.json.data.email_id === emailId)),
          (found) => found.length > 0,
          20_000,
        );
        return { handled: handle(verify(receipt)), raw: receipt.json };
      };

      const email = data(await sdk.emails.get(sent.id));
      const sentEvent = await read('email.sent', sent.id);
      expect(sentEvent.handled).toEqual({
        type: 'email.sent',
        email_id: sent.id,
        from: `Hooks <hooks@${domain}>`,
        to: ['reader@example.com'],
        subject: 'Hello',
        message_id: email.message_id,
        tags: { campaign: 'welcome' },
        template_id: template.id,
      });
      expect(email.message_id).toMatch(/^<.+@ap-southeast-2\.amazonses\.com>$/);
      expect(sentEvent.raw.data.object).toMatchObject({ object: 'email', id: sent.id, last_event: 'sent' }); // the contract's envelope stays
      expect(sentEvent.raw.data.object).not.toHaveProperty('html');

      expect((await read('email.bounced', bounced.id)).handled).toEqual({
        type: 'email.bounced',
        email_id: bounced.id,
        bounce: { type: 'Permanent', subType: 'General', message: expect.any(String) },
      });
      expect((await read('email.suppressed', suppressed.id)).handled).toEqual({
        type: 'email.suppressed',
        email_id: suppressed.id,
        suppressed: { type: 'suppression_list', message: 'Every recipient is on the suppression list' },
      });
      const created = await read('domain.created');
      expect(created.handled).toMatchObject({ type: 'domain.created', name: domain, region: 'ap-southeast-2' });
      expect(created.handled.records).toEqual(expect.arrayContaining(['TXT', 'MX']));
    } finally {
      await rx.stop();
    }
  }, 90_000);

  it('carries the Message-ID on every email event: null until SES accepted the email, then the header a reply refers to', async () => {
    const project = await createOtherProject();
    const sdk = new Resend(project.key, { baseUrl: baseUrl() });
    const rx = await new WebhookReceiver().start();
    try {
      const types = ['email.queued', 'email.sending', 'email.sent', 'email.delivered'] as const;
      data(await sdk.webhooks.create({ endpoint: rx.url, events: [...types] as never }));
      const domain = await verifiedDomain(project.key, 'msgid');
      const sent = data(
        await sdk.emails.send({ from: `ids@${domain}`, to: 'reader@example.com', subject: 'ids', text: 'x' }),
      );
      const receipts = await waitFor(
        async () => rx.receipts.filter((r) => r.json?.data?.email_id === sent.id),
        (found) => types.every((type) => found.some((r) => r.json.type === type)),
        20_000,
      );
      const { message_id: messageId } = data(await sdk.emails.get(sent.id));
      expect(messageId).toMatch(/^<.+@ap-southeast-2\.amazonses\.com>$/);
      const seen = Object.fromEntries(
        types.map((type) => {
          const receipt = receipts.find((r) => r.json.type === type)!;
          return [type, [receipt.json.data.message_id, receipt.json.data.object.message_id]];
        }),
      );
      expect(seen).toEqual({
        'email.queued': [null, null],
        'email.sending': [null, null],
        'email.sent': [messageId, messageId],
        'email.delivered': [messageId, messageId],
      });
    } finally {
      await rx.stop();
    }
  }, 60_000);
});
