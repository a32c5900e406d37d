import type { SQSRecord } from 'aws-lambda';

/** An SQS record as Lambda hands it to a queue worker, for tests that call a worker's handler directly. */
export const sqsRecord = (messageId: string, body: string, eventSourceARN = 'arn'): SQSRecord => ({
  messageId,
  receiptHandle: messageId,
  body,
  attributes: {} as SQSRecord['attributes'],
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN,
  awsRegion: 'ap-southeast-2',
});
