/**
 * DynamoDB Local's port, when the runtime chooses it (local/aws/dynamodb.ts): a port taken
 * between choosing and binding, even by a server that answers like DynamoDB (another runtime's JVM),
 * is never mistaken for ours; the JVM starts on another port chosen the same way.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { startDynamoDbLocal } from '../../local/aws/dynamodb';
import { freePort } from '../../local/ports';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
let impostor: Server;
let impostorCalls = 0;

beforeAll(async () => {
  // answers every DynamoDB call with an empty table list, as an idle DynamoDB Local would
  impostor = createServer((request, response) => {
    impostorCalls++;
    request.resume();
    response.setHeader('content-type', 'application/x-amz-json-1.0');
    response.end(JSON.stringify({ TableNames: [] }));
  });
  await new Promise<void>((resolve) => impostor.listen(0, '0.0.0.0', resolve));
});

afterAll(() => new Promise((resolve) => impostor.close(resolve)));

it('starts on a second chosen port when the first is taken by a server that answers like DynamoDB', async () => {
  const taken = (impostor.address() as AddressInfo).port;
  const chosen: number[] = [];
  const choose = async () => {
    const port = chosen.length === 0 ? taken : await freePort();
    chosen.push(port);
    return port;
  };
  const dynamo = await startDynamoDbLocal({ port: choose });
  try {
    expect(chosen).toHaveLength(2);
    expect(dynamo.port).toBe(chosen[1]);
    expect(dynamo.endpoint).toBe(`http://127.0.0.1:${chosen[1]}`);
    // the database answering is the JVM's own: a table made there is listed there
    const client = new DynamoDBClient({ endpoint: dynamo.endpoint, region: 'ap-southeast-2', credentials });
    await client.send(
      new CreateTableCommand({
        TableName: 'mine',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      }),
    );
    expect((await client.send(new ListTablesCommand({}))).TableNames).toEqual(['mine']);
    client.destroy();
  } finally {
    await dynamo.stop();
  }
  expect(impostorCalls).toBeGreaterThan(0); // the impostor was asked, and its answer not taken
}, 60_000);

it('fails with the reason when the port was given and is taken', async () => {
  const taken = (impostor.address() as AddressInfo).port;
  await expect(startDynamoDbLocal({ port: taken })).rejects.toThrow(/could not bind port/);
}, 60_000);
