/**
 * The single table, defined once as data: the CDK stack builds `dynamodb.Table` from it and the
 * local runtime builds DynamoDB Local's CreateTable input from it, so the two cannot disagree.
 * Access patterns and key formats: shared/platform/db/keys.ts.
 */
export const tableDefinition = {
  partitionKey: 'PK',
  sortKey: 'SK',
  /**
   * general-purpose index; add GSI2 only when an access pattern needs it. Keys only: its users are
   * sweeps and one list, which take the items from the table (shared/platform/db/table.ts), and an
   * index that projected every attribute would be written again on every status update of an
   * email or a delivery (bench/RESULTS.md, the send path's units).
   */
  globalIndexes: [{ name: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK', projection: 'KEYS_ONLY' }],
  /** epoch seconds; DynamoDB deletes expired items (events after 30 days, idempotency records after 24 h) */
  ttlAttribute: 'expires_at',
  stream: 'NEW_AND_OLD_IMAGES',
} as const;

/** The table's name in the local runtime (on AWS CloudFormation names it). */
export const LOCAL_TABLE_NAME = 'email-service';

/**
 * CreateTable input for DynamoDB Local (on-demand, string keys, each index's projection, the stream).
 * `stream: false` is for a test's own table that nothing reads the stream of: DynamoDB Local keeps
 * every stream record of every table in one store, and a stream created after that store has grown
 * costs each write to its table a walk through it (2,000 writes: 0.3 s without a stream, 6 s with
 * one made after 20,000 records of another table), on the one thread every request waits for. Late
 * in a test run that stalled the shared runtime's reads past their Lambda timeouts.
 */
export function createTableInput(tableName: string, options: { stream?: boolean } = {}) {
  const { partitionKey, sortKey, globalIndexes } = tableDefinition;
  const attributes = [partitionKey, sortKey, ...globalIndexes.flatMap((i) => [i.partitionKey, i.sortKey])];
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: attributes.map((AttributeName) => ({ AttributeName, AttributeType: 'S' as const })),
    KeySchema: [
      { AttributeName: partitionKey, KeyType: 'HASH' as const },
      { AttributeName: sortKey, KeyType: 'RANGE' as const },
    ],
    GlobalSecondaryIndexes: globalIndexes.map((index) => ({
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
        { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
      ],
      Projection: { ProjectionType: index.projection },
    })),
    ...(options.stream === false
      ? {}
      : { StreamSpecification: { StreamEnabled: true, StreamViewType: tableDefinition.stream } }),
  };
}
