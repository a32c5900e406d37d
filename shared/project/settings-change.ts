/**
 * An operator's change of a project's limits (`npm run project -- limits`): each setting set or
 * cleared on the project item. Apart from ./settings.ts, which every request reads: a quota set
 * here folds the usage counted on shards first (./quota.ts), and the quota reads the settings.
 */
import * as keys from '../platform/db/keys';
import { update, updateItem } from '../platform/db/table';
import { notFound } from '../platform/errors';
import { foldUsageShards } from './quota';
import { forgetProjectSettings, type ProjectSettings, readProjectSettings, settingsOf, wholeNumber } from './settings';

export interface SettingsChange {
  rate_limit?: number | null;
  daily_quota?: number | null;
  monthly_quota?: number | null;
  contact_limit?: number | null;
}

/** Sets (a number) or clears (null: back to the default) each setting given. */
export async function changeProjectSettings(projectId: string, change: SettingsChange): Promise<ProjectSettings> {
  const set: Record<string, number> = {};
  const remove: string[] = [];
  for (const [name, value] of Object.entries(change)) {
    if (value === undefined) continue;
    if (value === null) remove.push(name);
    else if (wholeNumber(value)) set[name] = value;
    else throw new Error(`${name} must be a whole number from 1, or none`);
  }
  const missing = () => notFound('Project');
  if (!Object.keys(set).length && !remove.length)
    return (await readProjectSettings(projectId)) ?? Promise.reject(missing());
  const item = await updateItem(
    update(keys.project(projectId), { set, remove, condition: { expression: 'attribute_exists(PK)' } }, missing),
  );
  forgetProjectSettings(projectId);
  const settings = settingsOf(item);
  // a quota counts what its period sent before it: the usage counted on shards goes onto the main counters (shared/project/quota.ts)
  if (set.daily_quota || set.monthly_quota) await foldUsageShards(projectId);
  return settings;
}
