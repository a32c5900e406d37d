/**
 * Who is calling: resolved once per request from the bearer key and handed to domain logic.
 * A key belongs to exactly one project; every key the domain builds starts with `projectId`,
 * so a resource of another project is simply not found (404, never 403).
 */
export type Permission = 'full_access' | 'sending_access';

export interface Caller {
  projectId: string;
  /** false for `es_test_` keys: their sends are simulated and their events carry `livemode: false` */
  livemode: boolean;
  permission: Permission;
  /** the API key used; undefined for callers outside HTTP (CLI, local bootstrap) */
  apiKeyId?: string;
  /** the OAuth grant whose access token was used; undefined for API keys (the pipeline keeps credential management to API keys) */
  grantId?: string;
}
