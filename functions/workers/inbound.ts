import type { SQSEvent } from 'aws-lambda';
import { MalformedReceipt, receiveInbound } from '#shared/receiving/inbound';
import { logger } from '#shared/platform/log';
import { processSqsBatch } from '#shared/platform/aws/batch';
import { fileReceivedEmail, forwardingTargets } from '#shared/inboxes/filing';
import { ingestReports, reportRecipientsOf } from '#shared/deliverability/ingest';

/**
 * The inbound queue's consumer: SES receipt notifications (SNS envelopes) become received emails
 * with `email.received` and `email.stored` (shared/receiving/inbound.ts has the steps), then filed
 * into the inboxes among their recipients (shared/inboxes/filing.ts: an inbox's forwarding address
 * brings its project in too); mail to a domain's DMARC or TLS report address is read into its
 * reports instead (shared/deliverability/ingest.ts). Messages are handled
 * concurrently; one that cannot be read or stored is a batch item failure, retried and then kept
 * in the inbound DLQ, while the rest of its batch goes through.
 */
export const handler = (event: SQSEvent) =>
  processSqsBatch(
    event,
    async (record) => {
      const outcome = await receiveInbound(record.body, {
        moreTakers: forwardingTargets,
        afterStore: fileReceivedEmail,
        reports: { recipientsOf: reportRecipientsOf, ingest: ingestReports },
      });
      if (outcome?.stored.length) logger.info('inbound mail received', { message_id: record.messageId, ...outcome });
    },
    {
      onError: (error, record) => {
        const malformed = error instanceof MalformedReceipt;
        logger[malformed ? 'warn' : 'error'](
          malformed ? 'SES receipt notification not readable' : 'inbound mail not stored',
          { message_id: record.messageId, error },
        );
      },
    },
  );
