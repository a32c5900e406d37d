/**
 * SES's notifications, read in one place with a schema: the events a configuration set publishes
 * (`eventType`: Send, Delivery, Bounce, Complaint, Reject, Rendering Failure, DeliveryDelay, Open,
 * Click, Subscription), the older identity notifications (`notificationType`: the same kinds by
 * the same names) and the receipt notification of inbound mail (`notificationType: "Received"`).
 * Each consumer of an SNS-fed queue (the email-status worker, the suppression writer, the inbound
 * worker) reads its message body with `readSesNotification` and gets one typed value.
 *
 * What is checked is what the consumers read: every notification has `mail.messageId`; a Bounce
 * its `bounce` with its type and recipients, a Complaint its `complaint` with its recipients, a
 * receipt its `receipt` with its recipients and action. The other kinds' objects are optional
 * (SES always sends them; the status worker copies them into the event as they are). Every object
 * keeps the fields SES adds that are not named here (loose schemas): SES adds fields over time,
 * and a new one must not make a notification unreadable. The kind's object is kept under SES's
 * own name, so the value is the notification as SES sent it.
 */
import * as z from 'zod/mini';
import { parseSnsEnvelope } from './sns-envelope';

/** The body is no SES notification, or a kind the service reads lacks what it needs. */
export class MalformedSesNotification extends Error {
  override name = 'MalformedSesNotification';
}

const text = /* @__PURE__ */ (() => z.optional(z.string()))();

const mail = /* @__PURE__ */ (() =>
  z.looseObject({
    messageId: z.string().check(z.minLength(1)),
    timestamp: text,
    source: text,
    destination: z.optional(z.array(z.string())),
    /** event publishing's tags: ours (`email_id`...) and SES's own (`ses:configuration-set`) */
    tags: z.optional(z.record(z.string(), z.array(z.string()))),
    commonHeaders: z.optional(
      z.looseObject({
        subject: text,
        messageId: text,
        from: z.optional(z.array(z.string())),
        to: z.optional(z.array(z.string())),
        cc: z.optional(z.array(z.string())),
        bcc: z.optional(z.array(z.string())),
        replyTo: z.optional(z.array(z.string())),
      }),
    ),
    headers: z.optional(z.array(z.looseObject({ name: z.string(), value: z.string() }))),
  }))();

const recipient = /* @__PURE__ */ (() =>
  z.looseObject({ emailAddress: z.string(), diagnosticCode: text, status: text, action: text }))();

const bounce = /* @__PURE__ */ (() =>
  z.looseObject({
    bounceType: z.string(),
    bounceSubType: text,
    bouncedRecipients: z.array(recipient),
    timestamp: text,
    feedbackId: text,
  }))();

const complaint = /* @__PURE__ */ (() =>
  z.looseObject({
    complainedRecipients: z.array(z.looseObject({ emailAddress: z.string() })),
    complaintFeedbackType: text,
    complaintSubType: z.optional(z.nullable(z.string())),
    timestamp: text,
    feedbackId: text,
  }))();

const delivery = /* @__PURE__ */ (() =>
  z.looseObject({
    timestamp: text,
    recipients: z.optional(z.array(z.string())),
    smtpResponse: text,
    processingTimeMillis: z.optional(z.number()),
  }))();
const deliveryDelay = /* @__PURE__ */ (() =>
  z.looseObject({
    delayType: text,
    expirationTime: text,
    timestamp: text,
    delayedRecipients: z.optional(z.array(z.looseObject({ emailAddress: text }))),
  }))();
const open = /* @__PURE__ */ (() => z.looseObject({ timestamp: text, userAgent: text, ipAddress: text }))();
const click = /* @__PURE__ */ (() =>
  z.looseObject({
    link: text,
    timestamp: text,
    userAgent: text,
    ipAddress: z.optional(z.nullable(z.string())),
    linkTags: z.optional(z.unknown()),
  }))();
const reject = /* @__PURE__ */ (() => z.looseObject({ reason: text }))();
const failure = /* @__PURE__ */ (() => z.looseObject({ errorMessage: text, templateName: text }))();
const subscription = /* @__PURE__ */ (() =>
  z.looseObject({
    contactList: text,
    timestamp: text,
    source: text,
    newTopicPreferences: z.optional(z.unknown()),
    oldTopicPreferences: z.optional(z.unknown()),
  }))();

const receipt = /* @__PURE__ */ (() =>
  z.looseObject({
    recipients: z.array(z.string()),
    timestamp: text,
    spamVerdict: z.optional(z.looseObject({ status: text })),
    virusVerdict: z.optional(z.looseObject({ status: text })),
    action: z.looseObject({ type: z.string(), bucketName: text, objectKey: text }),
  }))();

export type SesMail = z.output<typeof mail>;
export type SesRecipient = z.output<typeof recipient>;
export type SesBounce = z.output<typeof bounce>;
export type SesComplaint = z.output<typeof complaint>;
export type SesReceiptDetail = z.output<typeof receipt>;

/** The kinds, by the names event publishing uses (`Rendering Failure` of the older format is `RenderingFailure`). */
export type SesKind =
  | 'Send'
  | 'Delivery'
  | 'Bounce'
  | 'Complaint'
  | 'Reject'
  | 'RenderingFailure'
  | 'DeliveryDelay'
  | 'Open'
  | 'Click'
  | 'Subscription'
  | 'Received';

/** One SES notification: `mail`, its kind's name, and its kind's object under SES's name for it. */
export interface SesNotification {
  eventType?: string;
  notificationType?: string;
  mail: SesMail;
  bounce?: SesBounce;
  complaint?: SesComplaint;
  delivery?: z.output<typeof delivery>;
  deliveryDelay?: z.output<typeof deliveryDelay>;
  open?: z.output<typeof open>;
  click?: z.output<typeof click>;
  reject?: z.output<typeof reject>;
  failure?: z.output<typeof failure>;
  subscription?: z.output<typeof subscription>;
  receipt?: SesReceiptDetail;
}

/** Each kind's object: its field and schema, and whether a notification of the kind must have it. */
const DETAILS: Partial<Record<SesKind, { field: keyof SesNotification; schema: z.ZodMiniType; required: boolean }>> = {
  Bounce: { field: 'bounce', schema: bounce, required: true },
  Complaint: { field: 'complaint', schema: complaint, required: true },
  Received: { field: 'receipt', schema: receipt, required: true },
  Delivery: { field: 'delivery', schema: delivery, required: false },
  DeliveryDelay: { field: 'deliveryDelay', schema: deliveryDelay, required: false },
  Open: { field: 'open', schema: open, required: false },
  Click: { field: 'click', schema: click, required: false },
  Reject: { field: 'reject', schema: reject, required: false },
  RenderingFailure: { field: 'failure', schema: failure, required: false },
  Subscription: { field: 'subscription', schema: subscription, required: false },
};

const head = /* @__PURE__ */ (() => z.looseObject({ eventType: text, notificationType: text, mail }))();

/** A notification's kind; undefined for a kind the service does not know. */
export function sesKind(notification: Pick<SesNotification, 'eventType' | 'notificationType'>): SesKind | undefined {
  const name = String(notification.eventType ?? notification.notificationType ?? '').replace(' ', '');
  return (DETAILS[name as SesKind] || name === 'Send' ? name : undefined) as SesKind | undefined;
}

/** The first problem zod found, as one line. */
const problemOf = (error: z.core.$ZodError) => {
  const issue = error.issues[0];
  return `${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`;
};

/** The message in an SQS message body: the SNS envelope's, or the body itself (raw message delivery); an unreadable envelope is a MalformedSesNotification caused by the MalformedSnsEnvelope. */
export function sesMessageOf(body: string): unknown {
  try {
    return parseSnsEnvelope(body);
  } catch (error) {
    throw new MalformedSesNotification((error as Error).message, { cause: error });
  }
}

/**
 * The SES notification in an SQS message body: inside an SNS notification envelope, or bare (raw
 * message delivery). A body that is no SES notification, or a known kind without what the
 * consumers read, is a MalformedSesNotification (an unreadable envelope too: its cause is the
 * MalformedSnsEnvelope).
 */
export const readSesNotification = (body: string): SesNotification => sesNotificationFrom(sesMessageOf(body));

/** `message` (an SNS envelope's, parsed) as an SES notification, checked as readSesNotification does. */
export function sesNotificationFrom(message: unknown): SesNotification {
  const read = head.safeParse(message);
  if (!read.success) throw new MalformedSesNotification(`not an SES notification (${problemOf(read.error)})`);
  const notification = read.data as SesNotification & Record<string, unknown>;
  const kind = sesKind(notification);
  const detail = kind && DETAILS[kind];
  if (detail) {
    const value = notification[detail.field];
    if (value === undefined && detail.required)
      throw new MalformedSesNotification(`a ${kind} without its ${detail.field}`);
    if (value !== undefined) {
      const checked = detail.schema.safeParse(value);
      if (!checked.success)
        throw new MalformedSesNotification(
          `a ${kind} whose ${detail.field} is not readable (${detail.field}.${problemOf(checked.error)})`,
        );
    }
  }
  return notification;
}
