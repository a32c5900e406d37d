/**
 * Drafts: an unsent message of an inbox, `standalone` (a new conversation when sent) or `reply`
 * (to one message of a thread: one draft per message, so creating another answers 200 with the one
 * there, as Resend does: keys.inboxReplyDraft, attribute_not_exists).
 *
 * The draft item holds addresses, subject and bodies (html and text together at most
 * MAX_DRAFT_BODY_BYTES: an item is at most 400 KB); its files are objects of the content bucket
 * (`drafts/<project>/<draft>/<file id>`, `content` given or a `path` downloaded when the request is
 * made, with POST /emails' checks on the URL), 10 files and 25 MB at most. The inbox's `drafts` and
 * a reply draft's thread's `draft_count` (`has_draft`) change in the draft's transactions.
 *
 * Sending a draft is a reply or a new conversation (./outbound.ts) whose transaction also deletes
 * the draft and its counters; its files travel as attachments.
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import {
  del,
  getItem,
  isConditionFailed,
  put,
  queryPage,
  transact,
  update,
  type Item,
  type PageRequest,
  type WriteAction,
} from '../platform/db/table';
import { notFound, unprocessable } from '../platform/errors';
import { newId, nowIso } from '../platform/ids';
import { getObject, putObject } from '../platform/aws/s3';
import { blockedFileProblem, contentTypeFor, fetchPath, pathProblem } from '../emails/attachments';
import type { IdempotencyRequest } from '../emails/idempotency';
import type { SendEmailInput } from '../emails/model';
import { readInbox } from './inboxes';
import { missingMessage, readThread } from './threads';
import {
  addressed,
  readOriginal,
  referencesAfter,
  replyRecipients,
  replySubject,
  sendFromInbox,
  threadingHeaders,
} from './outbound';
import { MAX_FILE_BYTES, type CreateDraftInput, type Draft, type UpdateDraftInput } from './model';

/** html and text of a draft together, as UTF-8 (the item must stay under DynamoDB's 400 KB). */
export const MAX_DRAFT_BODY_BYTES = 300 * 1024;
const missingDraft = () => notFound('Draft', 'draft_id');
const fileKey = (projectId: string, draftId: string, fileId: string) => `drafts/${projectId}/${draftId}/${fileId}`;
const list = (value: string | string[] | null | undefined): string[] | null => (value == null ? null : [value].flat());

interface DraftFile {
  id: string;
  filename: string;
  content_type: string;
  size: number;
}

export const toDraft = (item: Item): Draft => ({
  object: 'inbox_draft',
  id: item.id,
  type: item.draft_type,
  to: item.to ?? null,
  cc: item.cc ?? [],
  bcc: item.bcc ?? [],
  subject: item.subject ?? null,
  html: item.html ?? null,
  text: item.text ?? null,
  thread_id: item.thread_id ?? null,
  reply_to_email_id: item.reply_to_email_id ?? null,
  email_id: item.email_id ?? null,
  created_at: item.created_at,
  updated_at: item.updated_at,
  attachments: item.attachments ?? [],
});

const snippet = (item: Item) => {
  const text = (item.text ?? String(item.html ?? '').replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim();
  return text ? text.slice(0, 140) : null;
};

export const toDraftListItem = (item: Item) => {
  const { object: _object, html: _html, text: _text, email_id: _email, created_at: _created, ...rest } = toDraft(item);
  return { ...rest, snippet: snippet(item) };
};

type FileInput = NonNullable<CreateDraftInput['attachments']>[number];

/** The request's files stored (downloaded first when given by `path`); 422 for an empty, unreadable or too large one. */
async function storeFiles(projectId: string, draftId: string, files: FileInput[]): Promise<DraftFile[]> {
  const problems: { code: string; message: string; path: string }[] = [];
  const loaded = await Promise.all(
    files.map(async (file, i) => {
      const path = `attachments.${i}`;
      if ((file.content === undefined) === (file.path === undefined)) {
        problems.push({ code: 'invalid_attachment', message: 'give either content (base64) or path (a URL)', path });
        return undefined;
      }
      let bytes: Buffer;
      if (file.content !== undefined) bytes = Buffer.from(file.content, 'base64');
      else {
        const problem = pathProblem(file.path!);
        if (problem) {
          problems.push({ code: 'invalid_attachment', message: `path refused: ${problem}`, path });
          return undefined;
        }
        try {
          bytes = await fetchPath(file.path!, MAX_FILE_BYTES);
        } catch (error) {
          problems.push({
            code: 'attachment_not_downloaded',
            message: `path could not be downloaded: ${(error as Error).message}`,
            path,
          });
          return undefined;
        }
      }
      if (bytes.byteLength === 0) problems.push({ code: 'empty_attachment', message: 'the file is empty', path });
      const blocked = blockedFileProblem(file.filename);
      if (blocked) problems.push({ code: 'blocked_attachment', message: blocked, path });
      return { file, bytes };
    }),
  );
  const total = loaded.reduce((sum, f) => sum + (f?.bytes.byteLength ?? 0), 0);
  if (total > MAX_FILE_BYTES)
    problems.push({
      code: 'attachments_too_large',
      message: 'the files of a draft total at most 25 MB',
      path: 'attachments',
    });
  if (problems.length) throw unprocessable(problems);
  return Promise.all(
    loaded.map(async (entry) => {
      const { file, bytes } = entry!;
      const id = newId();
      const contentType = file.content_type ?? contentTypeFor(file.filename);
      await putObject(fileKey(projectId, draftId, id), bytes, contentType, 'content');
      return { id, filename: file.filename, content_type: contentType, size: bytes.byteLength };
    }),
  );
}

function checkBodies(html: string | null | undefined, text: string | null | undefined) {
  const bytes = Buffer.byteLength(html ?? '') + Buffer.byteLength(text ?? '');
  if (bytes > MAX_DRAFT_BODY_BYTES)
    throw unprocessable([
      {
        code: 'draft_too_large',
        message: `html and text of a draft take at most ${MAX_DRAFT_BODY_BYTES / 1024} KB together`,
        path: 'html',
      },
    ]);
}

/** POST .../drafts: 201 with the new draft, or 200 with the reply draft already there for that message. */
export async function createDraft(
  caller: Caller,
  idOrAddress: string,
  input: CreateDraftInput,
): Promise<{ draft: Draft; created: boolean }> {
  const inbox = await readInbox(caller, idOrAddress);
  checkBodies(input.html, input.text);
  const reply = input.thread_id !== undefined;
  if (reply) {
    const [thread, message] = await Promise.all([
      readThread(caller.projectId, inbox.id, input.thread_id!),
      getItem(keys.inboxMessage(caller.projectId, inbox.id, input.thread_id!, input.reply_to_email_id!)),
    ]);
    if (!thread || !message) throw missingMessage();
    const existing = await getItem(keys.inboxReplyDraft(caller.projectId, inbox.id, input.reply_to_email_id!));
    if (existing) {
      const draft = await getItem(keys.inboxDraft(caller.projectId, inbox.id, existing.draft_id));
      if (draft) return { draft: toDraft(draft), created: false };
    }
  }
  const id = newId();
  const attachments = input.attachments?.length ? await storeFiles(caller.projectId, id, input.attachments) : [];
  const now = nowIso();
  const item: Item = {
    ...keys.inboxDraft(caller.projectId, inbox.id, id),
    type: 'inbox_draft',
    id,
    inbox_id: inbox.id,
    draft_type: reply ? 'reply' : 'standalone',
    to: list(input.to),
    cc: list(input.cc) ?? [],
    bcc: list(input.bcc) ?? [],
    subject: input.subject ?? null,
    html: input.html ?? null,
    text: input.text ?? null,
    thread_id: input.thread_id ?? null,
    reply_to_email_id: input.reply_to_email_id ?? null,
    email_id: null,
    attachments,
    created_at: now,
    updated_at: now,
  };
  const writes: WriteAction[] = [put(item), update(keys.inbox(caller.projectId, inbox.id), { add: { drafts: 1 } })];
  if (reply)
    writes.push(
      put(
        {
          ...keys.inboxReplyDraft(caller.projectId, inbox.id, input.reply_to_email_id!),
          type: 'inbox_reply_draft',
          draft_id: id,
        },
        { ifAbsent: { tag: 'reply draft exists', withItem: true } },
      ),
      update(
        keys.inboxThread(caller.projectId, inbox.id, input.thread_id!),
        { add: { draft_count: 1 }, condition: { expression: 'attribute_exists(PK)' } },
        { tag: 'thread gone' },
      ),
    );
  try {
    await transact(writes);
  } catch (error) {
    if (isConditionFailed(error, 'thread gone')) throw missingMessage();
    if (!isConditionFailed(error, 'reply draft exists')) throw error;
    const draft = await getItem(keys.inboxDraft(caller.projectId, inbox.id, error.item?.draft_id));
    if (!draft) throw error;
    return { draft: toDraft(draft), created: false }; // a concurrent create won
  }
  return { draft: toDraft(item), created: true };
}

async function readDraft(projectId: string, inboxId: string, draftId: string): Promise<Item> {
  const item = await getItem(keys.inboxDraft(projectId, inboxId, draftId));
  if (!item) throw missingDraft();
  return item;
}

export async function getDraft(caller: Caller, idOrAddress: string, draftId: string): Promise<Draft> {
  const inbox = await readInbox(caller, idOrAddress);
  return toDraft(await readDraft(caller.projectId, inbox.id, draftId));
}

export async function listDrafts(caller: Caller, idOrAddress: string, page: PageRequest) {
  const inbox = await readInbox(caller, idOrAddress);
  const { items, hasMore } = await queryPage(keys.inboxDrafts(caller.projectId, inbox.id), page);
  return { records: items.map(toDraftListItem), hasMore };
}

export async function updateDraft(
  caller: Caller,
  idOrAddress: string,
  draftId: string,
  input: UpdateDraftInput,
): Promise<Draft> {
  const inbox = await readInbox(caller, idOrAddress);
  const current = await readDraft(caller.projectId, inbox.id, draftId);
  checkBodies(
    input.html !== undefined ? input.html : current.html,
    input.text !== undefined ? input.text : current.text,
  );
  const set: Item = { updated_at: nowIso() };
  for (const field of ['to', 'cc', 'bcc'] as const)
    if (input[field] !== undefined) set[field] = field === 'to' ? list(input[field]) : (list(input[field]) ?? []);
  for (const field of ['subject', 'html', 'text'] as const) if (input[field] !== undefined) set[field] = input[field];
  if (input.attachments !== undefined)
    set.attachments = input.attachments?.length ? await storeFiles(caller.projectId, draftId, input.attachments) : [];
  await transact([
    update(
      keys.inboxDraft(caller.projectId, inbox.id, draftId),
      { set, condition: { expression: 'attribute_exists(PK)' } },
      missingDraft,
    ),
  ]);
  return toDraft({ ...current, ...set });
}

/** The writes that remove a draft with its counters (on delete, and in the transaction that sends it). */
function draftRemoval(projectId: string, inboxId: string, draft: Item, threadExists: boolean): WriteAction[] {
  return [
    del(keys.inboxDraft(projectId, inboxId, draft.id), { ifExists: missingDraft }),
    update(keys.inbox(projectId, inboxId), { add: { drafts: -1 } }),
    ...(draft.draft_type === 'reply'
      ? [
          del(keys.inboxReplyDraft(projectId, inboxId, draft.reply_to_email_id)),
          // a deleted thread's counter went with it (an ADD would make a stray item)
          ...(threadExists
            ? [
                update(
                  keys.inboxThread(projectId, inboxId, draft.thread_id),
                  { add: { draft_count: -1 }, condition: { expression: 'attribute_exists(PK)' } },
                  { tag: 'thread gone' },
                ),
              ]
            : []),
        ]
      : []),
  ];
}

export async function deleteDraft(caller: Caller, idOrAddress: string, draftId: string): Promise<string> {
  const inbox = await readInbox(caller, idOrAddress);
  const draft = await readDraft(caller.projectId, inbox.id, draftId);
  const thread = draft.thread_id
    ? await getItem(keys.inboxThread(caller.projectId, inbox.id, draft.thread_id))
    : undefined;
  try {
    await transact(draftRemoval(caller.projectId, inbox.id, draft, !!thread));
  } catch (error) {
    if (!isConditionFailed(error, 'thread gone')) throw error;
    await transact(draftRemoval(caller.projectId, inbox.id, draft, false)); // deleted in between
  }
  return draftId;
}

/** Sends the draft (a reply into its thread, or a new conversation in `sent`); the draft is gone in the same transaction. */
export async function sendDraft(
  caller: Caller,
  idOrAddress: string,
  draftId: string,
  headers: Record<string, string> | null | undefined,
  idempotency?: IdempotencyRequest,
) {
  const inbox = await readInbox(caller, idOrAddress);
  const draft = await readDraft(caller.projectId, inbox.id, draftId);
  if (draft.html == null && draft.text == null)
    throw unprocessable([{ code: 'missing_body', message: 'the draft has neither html nor text', path: 'html' }]);
  const attachments = await Promise.all(
    ((draft.attachments ?? []) as DraftFile[]).map(async (file) => {
      const bytes = await getObject(fileKey(caller.projectId, draft.id, file.id), 'content');
      if (!bytes)
        throw unprocessable([
          { code: 'attachment_gone', message: `the file ${file.filename} is no longer stored`, path: 'attachments' },
        ]);
      return { filename: file.filename, content: bytes.toString('base64'), content_type: file.content_type };
    }),
  );
  const base = {
    ...(draft.html != null ? { html: draft.html } : {}),
    ...(draft.text != null ? { text: draft.text } : {}),
    ...(attachments.length ? { attachments } : {}),
  };
  if (draft.draft_type === 'reply') {
    const { thread, original } = await readOriginal(caller, inbox.id, draft.thread_id, draft.reply_to_email_id);
    const also = draftRemoval(caller.projectId, inbox.id, draft, false); // the thread's draft_count: with its update
    const defaults = replyRecipients(inbox, original, false, []);
    const to = draft.to?.length ? draft.to : defaults.to;
    const references = referencesAfter(original);
    const email: SendEmailInput = {
      ...base,
      ...addressed(inbox, to, draft.cc ?? [], draft.bcc ?? []),
      subject: draft.subject ?? replySubject(original.subject),
      headers: { ...(headers ?? {}), ...threadingHeaders(references, original.message_id) },
    };
    return sendFromInbox(caller, {
      inbox,
      thread,
      threadId: thread.id,
      email,
      references,
      idempotency,
      also,
      threadAdd: { draft_count: -1 },
    });
  }
  if (!draft.subject)
    throw unprocessable([{ code: 'missing_subject', message: 'the draft has no subject', path: 'subject' }]);
  const email: SendEmailInput = {
    ...base,
    ...addressed(inbox, draft.to ?? [], draft.cc ?? [], draft.bcc ?? []),
    subject: draft.subject,
    ...(headers ? { headers } : {}),
  };
  const also = draftRemoval(caller.projectId, inbox.id, draft, false);
  return sendFromInbox(caller, { inbox, threadId: newId(), email, references: [], idempotency, also });
}
