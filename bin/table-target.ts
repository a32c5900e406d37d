/**
 * Which table the operators' CLIs (bin/api-key.ts, bin/project.ts) work on: `--table NAME` (or
 * TABLE_NAME) is a deployed table, with the AWS credentials and region of the environment (the
 * stack's TableName output); otherwise the running `npm start`'s DynamoDB Local, found through
 * DATA_DIR/runtime.json. Sets the environment the shared data modules read; load them after.
 * Answers the target (with the local runtime's default project: a deployed table has none), or an
 * error message when there is neither.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cliRegion } from '../lib/region';
import { LOCAL_REGION } from '../local/settings';

/** The options that choose the table, as every tool that uses it takes them. */
export const TARGET_OPTIONS = { table: { type: 'string' }, local: { type: 'boolean' } } as const;

export interface TargetTable {
  /** the project the local runtime made on its first start (runtime.json); none on a deployed table */
  defaultProjectId?: string;
}

export function useTargetTable(values: { local?: boolean; table?: string }): TargetTable | string {
  const runtimeFile = join(resolve(process.env.DATA_DIR || '.data'), 'runtime.json');
  const table = values.table ?? (values.local ? undefined : process.env.TABLE_NAME);
  if (table) {
    process.env.TABLE_NAME = table;
    process.env.AWS_REGION ||= cliRegion(); // the stack's region: AWS_REGION, else the saved context (lib/region.ts)
    return {};
  }
  if (!existsSync(runtimeFile))
    return `no deployed table given (--table or TABLE_NAME) and no local runtime running (${runtimeFile} not found: run npm start first)`;
  const runtime = JSON.parse(readFileSync(runtimeFile, 'utf8'));
  Object.assign(process.env, {
    TABLE_NAME: runtime.tableName,
    AWS_ENDPOINT_URL_DYNAMODB: runtime.dynamoDbEndpoint,
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID || 'local',
    AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY || 'local',
  });
  return { defaultProjectId: runtime.projectId };
}
