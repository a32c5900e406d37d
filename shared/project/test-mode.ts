/**
 * Test mode: an `es_test_` key works in its project's test twin, a project of its own whose id is
 * the live project's with TEST_SUFFIX. Every key of a resource starts with the project id
 * (shared/platform/db/keys.ts), so what a test key creates (domains, emails, contacts, segments,
 * topics, templates, broadcasts, webhooks, suppressions, events, idempotency keys, logs) is apart
 * from live data with no check to forget: a live key never finds a test resource (404) and the
 * other way round, exactly as between two projects.
 *
 * Why a twin rather than a `livemode` attribute filtered on every read: a filter is a check each
 * read must remember (the hostile probe of issue 22 found live data reachable from a test key
 * through every read that did not), where a key prefix cannot be forgotten; and a twin's data is
 * found, and wiped (shared/project/test-data.ts), by its own partitions.
 *
 * What the twin shares with its live project: the project item (its name; its rate limit setting,
 * counted on the twin's own windows: test mode is rate limited as live is, on a budget of its own)
 * and nothing else. Quotas, SES tenants and the reputation guard are live-only.
 */

/** What a test twin's id ends with. Project ids are UUIDv7s, which never contain it. */
export const TEST_SUFFIX = '_test';

/** True for a test twin's id. */
export const isTestProject = (projectId: string): boolean => projectId.endsWith(TEST_SUFFIX);

/** The test twin of a project (the same id when it already is one). */
export const testProjectId = (projectId: string): string =>
  isTestProject(projectId) ? projectId : `${projectId}${TEST_SUFFIX}`;

/** The live project of a test twin (the same id for a live project). */
export const liveProjectId = (projectId: string): string =>
  isTestProject(projectId) ? projectId.slice(0, -TEST_SUFFIX.length) : projectId;

/** The project a key of this mode works in. */
export const modeProjectId = (projectId: string, livemode: boolean): string =>
  livemode ? liveProjectId(projectId) : testProjectId(projectId);
