/**
 * Every DynamoDB key of the service is built here, and nowhere else.
 *
 * One table (see lib/table-definition.ts). Every key of a project's resources starts with the
 * project, so no Query can cross tenants; the few global lookups are items of their own, read
 * only on their exact key. Ids are UUIDv7, so a Query on a prefix returns items in creation order.
 *
 * | entity          | PK                      | SK                   | GSI1PK | GSI1SK | used by                                              |
 * |-----------------|-------------------------|----------------------|--------|--------|------------------------------------------------------|
 * | project         | PROJECT#<pid>           | PROJECT              | -      | -      | create (CLI, local bootstrap), get                   |
 * | default project | DEPLOYMENT              | DEFAULT_PROJECT      | -      | -      | local runtime: which project `npm start` provisions  |
 * | api key         | PROJECT#<pid>           | API_KEY#<kid>        | -      | -      | POST/GET/DELETE /api-keys (Query on prefix to list)  |
 * | api key hash    | API_KEY_HASH#<sha256>   | API_KEY_HASH         | -      | -      | every authenticated request (GetItem)                |
 * | segment         | PROJECT#<pid>           | SEGMENT#<sid>        | -      | -      | POST/GET/DELETE /segments (Query on prefix to list)  |
 * | event           | PROJECT#<pid>           | EVENT#<eid>          | -      | -      | outbox: written in the change's transaction; GET /events (Query, newest first); TTL 30 days |
 */
export interface Key {
  PK: string;
  SK: string;
}

const projectPk = (projectId: string) => `PROJECT#${projectId}`;

export const project = (projectId: string): Key => ({ PK: projectPk(projectId), SK: 'PROJECT' });
export const defaultProject = (): Key => ({ PK: 'DEPLOYMENT', SK: 'DEFAULT_PROJECT' });

export const apiKey = (projectId: string, apiKeyId: string): Key => ({ PK: projectPk(projectId), SK: `API_KEY#${apiKeyId}` });
export const apiKeys = (projectId: string) => ({ PK: projectPk(projectId), prefix: 'API_KEY#' });
export const apiKeyHash = (sha256Hex: string): Key => ({ PK: `API_KEY_HASH#${sha256Hex}`, SK: 'API_KEY_HASH' });

export const segment = (projectId: string, segmentId: string): Key => ({ PK: projectPk(projectId), SK: `SEGMENT#${segmentId}` });
export const segments = (projectId: string) => ({ PK: projectPk(projectId), prefix: 'SEGMENT#' });

export const event = (projectId: string, eventId: string): Key => ({ PK: projectPk(projectId), SK: `EVENT#${eventId}` });
export const events = (projectId: string) => ({ PK: projectPk(projectId), prefix: 'EVENT#' });

/** A collection of items under one partition whose sort keys share a prefix followed by the item id. */
export interface Collection {
  PK: string;
  prefix: string;
}
