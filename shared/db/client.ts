import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * The one DynamoDB client of a process, created at module scope so a warm Lambda reuses its
 * connections. The endpoint comes from the SDK's own `AWS_ENDPOINT_URL_DYNAMODB`, which is how
 * the local runtime points handlers at DynamoDB Local without them knowing.
 */
export const documentClient = DynamoDBDocumentClient.from(new DynamoDBClient({}), {
  marshallOptions: { removeUndefinedValues: true },
});

export function tableName(): string {
  const name = process.env.TABLE_NAME;
  if (!name) throw new Error('TABLE_NAME is not set');
  return name;
}
