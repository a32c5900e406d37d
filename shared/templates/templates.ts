/**
 * Templates: stored email content with declared variables, sent by POST /emails `template`.
 *
 * One item per template (keys.template) holds the draft's fields at the top level and, once
 * published, `published`: a snapshot of the content (from, subject, reply_to, html, text,
 * variables) with the draft version it was taken from. Every change of the draft gets a new
 * `version_id`, so `has_unpublished_versions` is "the published snapshot is of an older version".
 * Sending reads only `published`: a template that was never published cannot be sent (422
 * `template_not_published`), and editing a published template changes nothing that is sent
 * until the next publish.
 *
 * The alias is a uniqueness item (keys.templateAlias -> `template_id`) written with
 * attribute_not_exists in the template's own transaction, moved by PATCH and deleted with the
 * template. Paths and `template.id` take either: a UUID is an id, anything else an alias.
 *
 * Variables: `{{{KEY}}}` inserts a value as it is, `{{KEY}}` HTML-escaped (in html; text and
 * subject get it as it is). A key the content uses need not be declared (as on Resend: the SDK
 * creates templates from content alone); a declared one has a type and may have a fallback. A send
 * gives values for declared keys (of the declared type) and for undeclared keys the content uses
 * (a string or a number). Each key is filled by the send's value, else the declared fallback_value,
 * else the placeholder's own fallback (`{{{KEY|fallback}}}`, shared/templates/render.ts, also for an
 * empty value); a used key with none of them is 422 `missing_template_variable` naming it. Content
 * with unpaired braces (`{{{KEY}}`) is 422 `malformed_placeholder` at create and update.
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import {
  del,
  getItem,
  put,
  putItem,
  queryPage,
  transact,
  update,
  updateItem,
  type Item,
  type PageRequest,
  type WriteAction,
} from '../platform/db/table';
import { ApiError, conflict, notFound, unprocessable, type ErrorDetail } from '../platform/errors';
import { newId, nowIso, UUID_PATTERN } from '../platform/ids';
import type {
  CreateTemplateInput,
  PublishedVersion,
  TemplateContent,
  TemplateItem,
  TemplateRecord,
  TemplateVariable,
  UpdateTemplateInput,
} from './model';
import { placeholderProblems, render, renderHeader, variablesIn, type Values } from './render';

/** Each version (the draft, the published snapshot) at most this many bytes, so both fit one 400 KB item. */
export const MAX_VERSION_BYTES = 150 * 1024;
const NAME_MAX = 256;

export function toRecord(item: Item): TemplateRecord {
  const t = item as TemplateItem;
  return {
    object: 'template',
    id: t.id,
    name: t.name,
    alias: t.alias ?? null,
    status: t.status,
    from: t.from ?? null,
    subject: t.subject ?? null,
    reply_to: t.reply_to ?? null,
    html: t.html,
    text: t.text ?? null,
    variables: t.variables ?? [],
    published_at: t.published_at ?? null,
    has_unpublished_versions: !!t.published && t.published.version_id !== t.version_id,
    current_version_id: t.version_id,
    created_at: t.created_at,
    updated_at: t.updated_at,
  };
}

/** The list shows no content: a page of 100 templates with their html could exceed a Lambda response. */
export function toSummary(item: Item) {
  const { object, id, name, alias, status, published_at, has_unpublished_versions, created_at, updated_at } =
    toRecord(item);
  return { object, id, name, alias, status, published_at, has_unpublished_versions, created_at, updated_at };
}

const missing = () => notFound('Template', 'id_or_alias');
const aliasTaken = (alias: string) => () =>
  conflict('template_alias_taken', `The alias "${alias}" is taken by another template of this project`, 'alias');
const changedMeanwhile = () =>
  conflict('concurrent_update', 'The template was changed by another request meanwhile; try again');

const list = (value: string | string[] | null | undefined): string[] | null =>
  value === undefined || value === null ? null : Array.isArray(value) ? value : [value];

/** The template by id (one GetItem) or by alias (the alias item, then the template). */
export async function findTemplate(projectId: string, idOrAlias: string): Promise<TemplateItem | undefined> {
  let templateId = idOrAlias;
  if (!UUID_PATTERN.test(idOrAlias)) {
    const pointer = await getItem(keys.templateAlias(projectId, idOrAlias));
    if (!pointer) return undefined;
    templateId = pointer.template_id as string;
  }
  return getItem<TemplateItem>(keys.template(projectId, templateId));
}

async function load(caller: Caller, idOrAlias: string): Promise<TemplateItem> {
  const item = await findTemplate(caller.projectId, idOrAlias);
  if (!item) throw missing();
  return item;
}

type InputVariable = { key: string; type: 'string' | 'number'; fallback_value?: string | number | null };

/** Declared variables with their times: a key declared before keeps its `created_at`, and its `updated_at` unless it changed. */
function declare(inputs: InputVariable[], before: TemplateVariable[], now: string): TemplateVariable[] {
  return inputs.map((v) => {
    const fallback = v.fallback_value ?? null;
    const old = before.find((b) => b.key === v.key);
    const same = old && old.type === v.type && old.fallback_value === fallback;
    return {
      key: v.key,
      type: v.type,
      fallback_value: fallback,
      created_at: old?.created_at ?? now,
      updated_at: same ? old.updated_at : now,
    };
  });
}

/**
 * 422 naming each placeholder with unpaired braces in the subject, html or text `input` gives. Keys
 * are not checked: a send may give any key a value (above), and one without is 422 at the send.
 */
function checkPlaceholders(input: { subject?: string | null; html?: string; text?: string | null }): void {
  const problems = placeholderProblems({ subject: input.subject, html: input.html, text: input.text }, () => true, '');
  if (problems.length) throw unprocessable(problems);
}

/** What the schema cannot check: the version fits its share of the item. */
function checkContent(content: TemplateContent): void {
  if (Buffer.byteLength(JSON.stringify(content)) > MAX_VERSION_BYTES) {
    const message = `A template's content may be at most ${MAX_VERSION_BYTES / 1024} KB`;
    throw new ApiError(413, 'validation_error', message, [{ code: 'template_too_large', message, path: 'html' }]);
  }
}

const contentOf = (t: TemplateContent): TemplateContent => ({
  from: t.from,
  subject: t.subject,
  reply_to: t.reply_to,
  html: t.html,
  text: t.text,
  variables: t.variables,
});

const aliasItem = (projectId: string, alias: string, templateId: string): Item => ({
  ...keys.templateAlias(projectId, alias),
  type: 'template_alias',
  project_id: projectId,
  template_id: templateId,
});

export async function createTemplate(caller: Caller, input: CreateTemplateInput): Promise<TemplateRecord> {
  checkPlaceholders(input);
  const now = nowIso();
  const content: TemplateContent = {
    from: input.from ?? null,
    subject: input.subject ?? null,
    reply_to: list(input.reply_to),
    html: input.html,
    text: input.text ?? null,
    variables: declare(input.variables ?? [], [], now),
  };
  checkContent(content);
  const item: TemplateItem = {
    id: newId(),
    project_id: caller.projectId,
    name: input.name,
    alias: input.alias ?? null,
    ...content,
    version_id: newId(),
    status: 'draft',
    published_at: null,
    created_at: now,
    updated_at: now,
  };
  const write = put({ ...keys.template(caller.projectId, item.id), type: 'template', ...item });
  if (item.alias)
    await transact([
      write,
      put(aliasItem(caller.projectId, item.alias, item.id), { ifAbsent: aliasTaken(item.alias) }),
    ]);
  else await putItem(write);
  return toRecord(item);
}

export async function getTemplate(caller: Caller, idOrAlias: string): Promise<TemplateRecord> {
  return toRecord(await load(caller, idOrAlias));
}

export async function listTemplates(caller: Caller, page: PageRequest) {
  const { items, hasMore } = await queryPage(keys.templates(caller.projectId), page);
  return { records: items.map(toSummary), hasMore };
}

/** Changes the draft (a new version); the published version stays as it was. The alias item moves with `alias`. */
export async function updateTemplate(
  caller: Caller,
  idOrAlias: string,
  input: UpdateTemplateInput,
): Promise<TemplateRecord> {
  checkPlaceholders(input); // only what the request changes
  const item = await load(caller, idOrAlias);
  const now = nowIso();
  const content: TemplateContent = {
    from: input.from === undefined ? item.from : input.from,
    subject: input.subject === undefined ? item.subject : input.subject,
    reply_to: input.reply_to === undefined ? item.reply_to : list(input.reply_to),
    html: input.html ?? item.html,
    text: input.text === undefined ? item.text : input.text,
    variables: input.variables === undefined ? item.variables : declare(input.variables ?? [], item.variables, now),
  };
  checkContent(content);
  const alias = input.alias === undefined ? item.alias : input.alias;
  const next: TemplateItem = {
    ...item,
    ...content,
    name: input.name ?? item.name,
    alias,
    version_id: newId(),
    updated_at: now,
  };
  const writes: WriteAction[] = [
    update(
      keys.template(caller.projectId, item.id),
      {
        set: { ...content, name: next.name, alias, version_id: next.version_id, updated_at: now },
        condition: {
          expression: '#version = :version',
          names: { '#version': 'version_id' },
          values: { ':version': item.version_id },
        },
      },
      changedMeanwhile,
    ),
  ];
  if (alias !== item.alias) {
    if (item.alias) writes.push(del(keys.templateAlias(caller.projectId, item.alias)));
    if (alias) writes.push(put(aliasItem(caller.projectId, alias, item.id), { ifAbsent: aliasTaken(alias) }));
  }
  await transact(writes);
  return toRecord(next);
}

/** Deletes the template and its alias item in one transaction; a second delete is 404. */
export async function deleteTemplate(caller: Caller, idOrAlias: string): Promise<string> {
  const item = await load(caller, idOrAlias);
  await transact([
    // unchanged since read, so the alias deleted below is still the template's own
    del(keys.template(caller.projectId, item.id), {
      ifUnchanged: { expected: { version_id: item.version_id }, onChanged: changedMeanwhile },
    }),
    ...(item.alias ? [del(keys.templateAlias(caller.projectId, item.alias))] : []),
  ]);
  return item.id;
}

/** Copies the draft to the published version. Publishing an unchanged draft again only moves `published_at`. */
export async function publishTemplate(caller: Caller, idOrAlias: string): Promise<TemplateRecord> {
  const item = await load(caller, idOrAlias);
  const now = nowIso();
  const published: PublishedVersion = { ...contentOf(item), version_id: item.version_id };
  const after = await updateItem(
    update(
      keys.template(caller.projectId, item.id),
      {
        set: { status: 'published', published, published_at: now, updated_at: now },
        condition: {
          expression: '#version = :version',
          names: { '#version': 'version_id' },
          values: { ':version': item.version_id },
        },
      },
      changedMeanwhile,
    ),
  );
  return toRecord(after);
}

/** A new draft with the draft's content, named "<name> (copy)", without the alias (aliases are unique). */
export async function duplicateTemplate(caller: Caller, idOrAlias: string): Promise<TemplateRecord> {
  const source = await load(caller, idOrAlias);
  const now = nowIso();
  const suffix = ' (copy)';
  const copy: TemplateItem = {
    ...contentOf(source),
    variables: source.variables.map((v) => ({ ...v, created_at: now, updated_at: now })),
    id: newId(),
    project_id: caller.projectId,
    name: source.name.slice(0, NAME_MAX - suffix.length) + suffix,
    alias: null,
    version_id: newId(),
    status: 'draft',
    published_at: null,
    created_at: now,
    updated_at: now,
  };
  await putItem(put({ ...keys.template(caller.projectId, copy.id), type: 'template', ...copy }));
  return toRecord(copy);
}

/** What a send takes from a template: the rendered content, and the template's from/subject/reply_to for the request to fall back on. */
export interface RenderedTemplate {
  from: string | null;
  subject: string | null;
  reply_to: string[] | null;
  html: string;
  text: string | null;
}

/**
 * Renders a template's published version with a send's variables. Problems are reported with
 * paths under `path` (e.g. `template.variables.PRICE`, or `3.template.id` in a batch).
 */
export function renderPublished(
  item: TemplateItem | undefined,
  given: Record<string, string | number>,
  path: string[],
): { rendered: RenderedTemplate } | { problems: ErrorDetail[] } {
  const at = (...parts: string[]) => [...path, ...parts].join('.');
  if (!item)
    return {
      problems: [
        { code: 'template_not_found', message: 'No template with this id or alias in this project', path: at('id') },
      ],
    };
  const version = item.published;
  if (!version) {
    return {
      problems: [
        {
          code: 'template_not_published',
          message: 'The template has never been published: publish it first',
          path: at('id'),
        },
      ],
    };
  }
  const problems: ErrorDetail[] = [];
  const values: Values = {};
  const declared = new Map(version.variables.map((v) => [v.key, v]));
  const used = new Set([version.subject, version.html, version.text].flatMap((field) => variablesIn(field ?? '')));
  for (const [key, value] of Object.entries(given)) {
    const variable = declared.get(key);
    if (!variable && used.has(key))
      values[key] = value; // undeclared, but the content uses it: any string or number
    else if (!variable)
      problems.push({
        code: 'unknown_template_variable',
        message: `The template neither declares nor uses a variable ${key}`,
        path: at('variables', key),
      });
    else if (typeof value !== variable.type) {
      problems.push({
        code: 'invalid_template_variable',
        message: `must be a ${variable.type}`,
        path: at('variables', key),
      });
    }
  }
  for (const variable of version.variables) {
    const value = Object.hasOwn(given, variable.key) ? given[variable.key] : variable.fallback_value;
    if (value !== null && value !== undefined) values[variable.key] = value;
  }
  const html = render(version.html, values);
  const text = version.text === null ? null : render(version.text, values, { escape: false });
  const subject = version.subject === null ? null : renderHeader(version.subject, values);
  const unfilled = [...new Set([...html.missing, ...(text?.missing ?? []), ...(subject?.missing ?? [])])];
  for (const key of unfilled) {
    problems.push({
      code: 'missing_template_variable',
      message: `${key} has no value and no fallback`,
      path: at('variables', key),
    });
  }
  if (problems.length) return { problems };
  return {
    rendered: {
      from: version.from,
      subject: subject?.text ?? null,
      reply_to: version.reply_to,
      html: html.text,
      text: text?.text ?? null,
    },
  };
}
