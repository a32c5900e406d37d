/**
 * A DynamoDB stream record's image (`NewImage`, `OldImage`: attribute values as the stream carries
 * them) as a plain item, for the stream consumers that read more than a few known attributes.
 */
import type { AttributeValue } from 'aws-lambda';
import { unmarshall } from '@aws-sdk/util-dynamodb';

export const itemOfImage = (image: Record<string, AttributeValue> | undefined): Record<string, unknown> =>
  image ? unmarshall(image as never) : {};
