/**
 * The one SES v2 client of a process (endpoint from AWS_ENDPOINT_URL_SESV2 locally) and the
 * region SES lives in. What the service creates in SES is named by its feature
 * (shared/domains/identity.ts: one configuration set per domain).
 */
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { guarded } from './call-guard';

// The SES calls the features make, built where their inputs are decided (a domain's identity and
// configuration set, a send, the account's rate) and sent through the clients below. Re-exported so
// the SDK stays behind platform/ (test/unit/layout.test.ts); esbuild keeps only what a bundle uses.
export {
  CreateConfigurationSetCommand,
  CreateConfigurationSetEventDestinationCommand,
  CreateEmailIdentityCommand,
  CreateTenantCommand,
  CreateTenantResourceAssociationCommand,
  DeleteConfigurationSetCommand,
  DeleteEmailIdentityCommand,
  type EventType,
  GetAccountCommand,
  GetEmailIdentityCommand,
  GetReputationEntityCommand,
  GetTenantCommand,
  PutConfigurationSetDeliveryOptionsCommand,
  PutConfigurationSetSendingOptionsCommand,
  PutConfigurationSetTrackingOptionsCommand,
  PutEmailIdentityMailFromAttributesCommand,
  SendEmailCommand,
  UpdateConfigurationSetEventDestinationCommand,
  UpdateReputationEntityPolicyCommand,
} from '@aws-sdk/client-sesv2';
import { sdkLogger } from './sdk-logger';

// Pure: a bundle that imports this module without using the client (a handler that only reads
// domains, or looks one up for sending) leaves the SES client out, some 60 KB.
export const sesClient = /* @__PURE__ */ guarded('ses', /* @__PURE__ */ new SESv2Client({ logger: sdkLogger }));

/**
 * The client sends go through: one attempt only. The SDK would retry a throttled send on its own,
 * outside the account's send-rate limiter (shared/emails/send-rate.ts), and its retries would land in the
 * seconds other senders hold; a throttled send goes back to the queue and takes a new slot instead.
 */
export const sesSendClient = /* @__PURE__ */ guarded(
  'ses',
  /* @__PURE__ */ new SESv2Client({ maxAttempts: 1, logger: sdkLogger }),
);
