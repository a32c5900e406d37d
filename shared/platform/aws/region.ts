/**
 * The region this code runs in, where every SES resource it makes lives (the domain's `region`, its
 * MAIL FROM and receiving MX hosts, SES's Message-ID): on Lambda AWS_REGION, which Lambda sets to the
 * function's region (the stack's, `cdk deploy -c region=`: lib/region.ts); locally the local
 * runtime's (local/runtime.ts). Read at each call, never a constant, so one bundle serves every
 * region. A leaf: the email record and the domain's records name it without the SES client.
 */
export function awsRegion(): string {
  const value = process.env.AWS_REGION;
  if (!value) throw new Error('AWS_REGION is not set (Lambda and the local runtime set it)');
  return value;
}

/**
 * The Message-ID header SES gives a message it accepted as `sesMessageId`, as its recipients see
 * it (RFC 5322 `<id-left@id-right>`): SES replaces any Message-ID of ours with
 * `<MessageId@<region>.amazonses.com>` (`email.amazonses.com` in us-east-1).
 */
export function sesMessageIdHeader(sesMessageId: string): string {
  const region = awsRegion();
  return `<${sesMessageId}@${region === 'us-east-1' ? 'email' : region}.amazonses.com>`;
}
