/**
 * First-start provisioning of the local runtime: the default project and one API key.
 * With LOCAL_API_KEY set, exactly that key is provisioned (once; a restart finds it).
 * Without it, a new key is printed on the first start only: keys are stored as hashes, so
 * later starts cannot show it again (`npm run api-key -- create` makes another).
 */
import type { KeyMode } from '../shared/access/api-key-token';
import { authenticate, createApiKey } from '../shared/access/api-keys';
import type { Caller } from '../shared/platform/caller';
import { ensureDefaultProject } from '../shared/project/projects';
import { liveProjectId } from '../shared/project/test-mode';

export interface Provisioned {
  projectId: string;
  /** the plain key when this start created one */
  newKey?: string;
  /** LOCAL_API_KEY was already provisioned (or just now) */
  localKey?: string;
}

export async function provisionDefaultProject(localApiKey?: string): Promise<Provisioned> {
  const { project, created } = await ensureDefaultProject();
  const caller = (mode: KeyMode): Caller => ({
    projectId: project.id,
    livemode: mode === 'live',
    permission: 'full_access',
  });
  if (localApiKey) {
    const existing = await authenticate(localApiKey);
    if (existing && liveProjectId(existing.projectId) !== project.id) {
      throw new Error('LOCAL_API_KEY is already provisioned for another project in this DATA_DIR');
    }
    if (!existing) {
      const mode: KeyMode = localApiKey.startsWith('es_live_') ? 'live' : 'test';
      await createApiKey(caller(mode), { name: 'LOCAL_API_KEY', token: localApiKey, mode });
    }
    return { projectId: project.id, localKey: localApiKey };
  }
  if (!created) return { projectId: project.id };
  // live: locally "live" mail goes to the local SES stand-in and shows in the mail viewer
  const { token } = await createApiKey(caller('live'), { name: 'default (npm start)', mode: 'live' });
  return { projectId: project.id, newKey: token };
}
