import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { guarded } from '../aws/call-guard';
import { sdkLogger } from '../aws/sdk-logger';

/**
 * The one DynamoDB client of a process, created at module scope so a warm Lambda reuses its
 * connections. The endpoint comes from the SDK's own `AWS_ENDPOINT_URL_DYNAMODB`, which is how
 * the local runtime points handlers at DynamoDB Local without them knowing.
 */
export const documentClient = DynamoDBDocumentClient.from(
  guarded('dynamodb', new DynamoDBClient({ logger: sdkLogger })),
  {
    // convertClassInstanceToMap: the SDK takes an object for a map only if its `constructor` is
    // Object, so a client's map with a key named "constructor" (contact properties, email headers)
    // was refused with a 500; with it, every object is a map of its own enumerable properties.
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true },
  },
);

export function tableName(): string {
  const name = process.env.TABLE_NAME;
  if (!name) throw new Error('TABLE_NAME is not set');
  return name;
}
