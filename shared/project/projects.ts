/**
 * Projects: the tenant boundary. Every key a project's resources live under starts with its id.
 * Projects are created by the CLI (`npm run api-key -- create`) or, locally, by `npm start`.
 */
import * as keys from '../platform/db/keys';
import { getItem, isConditionFailed, put, transact } from '../platform/db/table';
import { newId, nowIso } from '../platform/ids';

export interface Project {
  id: string;
  name: string;
  created_at: string;
}

export async function createProject(name: string): Promise<Project> {
  const project: Project = { id: newId(), name, created_at: nowIso() };
  await transact([
    put(
      { ...keys.project(project.id), type: 'project', project_id: project.id, ...project },
      { ifAbsent: () => new Error('project id collision') },
    ),
  ]);
  return project;
}

export async function getProject(projectId: string): Promise<Project | undefined> {
  const item = await getItem(keys.project(projectId));
  return item ? { id: item.id, name: item.name, created_at: item.created_at } : undefined;
}

/**
 * The project `npm start` provisions: created on first start, found again after a restart.
 * Returns `created: true` only the first time. Two starts racing: the pointer's condition lets
 * exactly one win, and the loser reads the winner's project.
 */
export async function ensureDefaultProject(): Promise<{ project: Project; created: boolean }> {
  const pointer = await getItem(keys.defaultProject());
  if (pointer) {
    const project = await getProject(pointer.project_id);
    if (!project) throw new Error(`the default project ${pointer.project_id} is missing from the table`);
    return { project, created: false };
  }
  const project: Project = { id: newId(), name: 'default', created_at: nowIso() };
  try {
    await transact([
      put({ ...keys.project(project.id), type: 'project', project_id: project.id, ...project }),
      put(
        { ...keys.defaultProject(), type: 'default_project', project_id: project.id },
        { ifAbsent: { tag: 'lost the race' } },
      ),
    ]);
  } catch (error) {
    if (!isConditionFailed(error, 'lost the race')) throw error;
    return ensureDefaultProject();
  }
  return { project, created: true };
}
