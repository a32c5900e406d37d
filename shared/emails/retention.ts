/**
 * How long a sent email is kept: its record (and what points to it, the SES message lookup)
 * expires EMAIL_RETENTION_DAYS (default 30, as Resend keeps logs) after the email is sent or
 * scheduled, by DynamoDB's TTL; its content by the content bucket's lifecycle, which outlives it
 * (lib/constructs/content-bucket.ts). A leaf module: the SES feedback workers bundle it alone.
 */
const DEFAULT_RETENTION_DAYS = 30;

/** When an email's record expires (DynamoDB TTL, epoch seconds): EMAIL_RETENTION_DAYS after `from` (its send or scheduled time). */
export function emailExpiresAt(from: string | number): number {
  const days = Number(process.env.EMAIL_RETENTION_DAYS) || DEFAULT_RETENTION_DAYS;
  return Math.floor(new Date(from).getTime() / 1000) + days * 24 * 60 * 60;
}
