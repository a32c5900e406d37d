/** The region every SES resource lives in (DESIGN.md: the domain's `region`). A leaf: the email record names it without the SES client. */
export const SES_REGION: string = 'ap-southeast-2';

/**
 * The Message-ID header SES gives a message it accepted as `sesMessageId`, as its recipients see
 * it (RFC 5322 `<id-left@id-right>`): SES replaces any Message-ID of ours with
 * `<MessageId@<region>.amazonses.com>` (`email.amazonses.com` in us-east-1).
 */
export const sesMessageIdHeader = (sesMessageId: string): string => `<${sesMessageId}@${SES_REGION === 'us-east-1' ? 'email' : SES_REGION}.amazonses.com>`;
