/**
 * A sent email's attachments (Resend's `attachments`): each one stored once, as its own object in
 * the content bucket (`emails/<project id>/<email id>/attachments/<attachment id>`), so the email's
 * content object (./content.ts) only lists them and GET /emails/{id}/attachments can hand out a
 * presigned download URL per attachment.
 *
 * - `content` (base64) attachments are stored when the email is accepted, beside its content;
 *   how much a request can bring is Lambda's 6 MB request (README, "Limits").
 * - `path` attachments (an https URL) are fetched by a stage of their own before the email reaches
 *   its send queue (./attachment-fetch.ts), with the webhooks' address guard
 *   (shared/platform/net/outbound.ts: every address the host resolves to must be public, and the connection
 *   goes only to the addresses checked), redirects followed only on the same host (at most 3),
 *   PATH_CONNECT_TIMEOUT_MS to connect and PATH_FETCH_TIMEOUT_MS for all of an email's fetches,
 *   and all of an email's attachments at most MAX_ATTACHMENT_BYTES, counted while the bytes
 *   arrive. The stage stores what it fetched under the same key, so the sender only ever reads
 *   stored bytes and the download works once they are. A fetch that fails fails the email with
 *   the reason.
 * - `content_id` makes an attachment inline (Content-Disposition inline, Content-ID), for `cid:`
 *   references in the html. `content_type`, when not given, is inferred from the file name.
 */
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import { getObject, headObject, putObject } from '../platform/aws/s3';
import { HEADER_UNSAFE } from '../platform/mail/header-text';
import { checkedAddresses, pinnedLookup } from '../platform/net/outbound';
import { endpointProblem, urlPort } from '../platform/net/endpoint';

/** An attachment as the email's content object lists it. */
/** An attachment inside content stored before attachments were objects of their own. */
export interface InlineAttachment {
  filename: string;
  content: string;
  content_type?: string;
}

export interface StoredAttachment {
  id: string;
  filename: string | null;
  content_type: string;
  /** set: an inline attachment, referenced as `cid:<content_id>` */
  content_id: string | null;
  /** bytes; null for a `path` attachment until the sender fetched it */
  size: number | null;
  /** the URL the sender fetches it from */
  path?: string;
}

/**
 * What all of one email's attachments may weigh, raw: SES takes messages up to 40 MB, counted
 * after base64 (4/3, plus MIME's line breaks), with room for the bodies and headers.
 */
export const MAX_ATTACHMENT_BYTES = 28 * 1024 * 1024;
/**
 * How long all of one email's `path` fetches may take, from the first connection to the last byte:
 * far under the fetch worker's 60 s timeout (functions/workers.ts), so a fetch that hangs ends the
 * email `failed` with its reason instead of timing the invocation out. 28 MB in 20 s is 1.4 MB/s.
 */
export const PATH_FETCH_TIMEOUT_MS = 20_000;
/** A `path` host must accept the TCP connection within this (as webhooks: a host that drops SYNs fails fast). */
export const PATH_CONNECT_TIMEOUT_MS = 3_000;
const MAX_REDIRECTS = 3;

/**
 * The file extensions SES refuses in an attachment (SES Developer Guide, "Unsupported attachment types"):
 * a send with one fails at SES. The inbox routes refuse them up front (422), as Resend's SDK documents.
 */
const SES_UNSUPPORTED_EXTENSIONS = new Set(
  (
    'ade adp app asp bas bat cer chm cmd com cpl crt csh der exe fxp gadget hlp hta inf ins isp its js jse ksh lib lnk ' +
    'mad maf mag mam maq mar mas mat mau mav maw mda mdb mde mdt mdw mdz msc msh msh1 msh2 mshxml msh1xml msh2xml msi ' +
    'msp mst ops pcd pif plg prf prg reg scf scr sct shb shs sys ps1 ps1xml ps2 ps2xml psc1 psc2 tmp url vb vbe vbs vps ' +
    'vsmacros vss vst vsw vxd ws wsc wsf wsh xnk'
  ).split(' '),
);

/** Why SES would refuse a file of this name, or undefined. */
export function blockedFileProblem(filename: string | null | undefined): string | undefined {
  const extension = /\.([A-Za-z0-9]+)$/.exec(filename ?? '')?.[1]?.toLowerCase();
  return extension && SES_UNSUPPORTED_EXTENSIONS.has(extension)
    ? `SES does not send .${extension} files (a blocked file type)`
    : undefined;
}

export const attachmentKey = (projectId: string, emailId: string, attachmentId: string): string =>
  `emails/${projectId}/${emailId}/attachments/${attachmentId}`;

const TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  zip: 'application/zip',
  gz: 'application/gzip',
  json: 'application/json',
  xml: 'application/xml',
  csv: 'text/csv',
  txt: 'text/plain',
  htm: 'text/html',
  html: 'text/html',
  ics: 'text/calendar',
  md: 'text/markdown',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  bmp: 'image/bmp',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  ico: 'image/vnd.microsoft.icon',
  heic: 'image/heic',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  rtf: 'application/rtf',
  eml: 'message/rfc822',
  pkpass: 'application/vnd.apple.pkpass',
};

/** The MIME type a file name suggests (`application/octet-stream` when it suggests none). */
export function contentTypeFor(filename: string | null | undefined): string {
  const extension = /\.([A-Za-z0-9]+)$/.exec(filename ?? '')?.[1]?.toLowerCase();
  return (extension && TYPES[extension]) || 'application/octet-stream';
}

/** The file name at the end of a URL's path (`https://x/a/report.pdf?v=1` -> `report.pdf`), or null. */
export function filenameFromPath(path: string): string | null {
  try {
    const last = decodeURIComponent(new URL(path).pathname.split('/').pop() ?? '');
    return last && last.length <= 256 && !HEADER_UNSAFE.test(last) && !/["\\]/.test(last) ? last : null; // what a filename may be (./model.ts)
  } catch {
    return null;
  }
}

/** Why the sender would not fetch `path`, or undefined: the webhooks' rules for an endpoint (https; locally also http to loopback). */
export const pathProblem = (path: string): string | undefined => endpointProblem(path);

/** Stores accepted `content` attachments (raw bytes), side by side. */
export async function putAttachments(
  projectId: string,
  emailId: string,
  attachments: { id: string; bytes: Buffer; content_type: string }[],
): Promise<void> {
  await Promise.all(
    attachments.map((a) => putObject(attachmentKey(projectId, emailId, a.id), a.bytes, a.content_type, 'content')),
  );
}

/** An attachment's bytes as stored; undefined when there are none (a `path` not fetched yet, or expired). */
export const storedAttachment = (
  projectId: string,
  emailId: string,
  attachmentId: string,
): Promise<Buffer | undefined> => getObject(attachmentKey(projectId, emailId, attachmentId), 'content');

/** The stored size of an attachment (a `path` one once fetched), or undefined. */
export const storedAttachmentSize = async (
  projectId: string,
  emailId: string,
  attachmentId: string,
): Promise<number | undefined> => (await headObject(attachmentKey(projectId, emailId, attachmentId), 'content'))?.size;

export class AttachmentFetchError extends Error {}
/** A `path` attachment the sender finds without stored bytes: not fetched yet (an email accepted before the fetch stage). */
export class PathNotFetched extends Error {}

/**
 * What a live fetch checks before it connects (the URL's rules, then every address its host
 * resolves to), with nothing fetched: test mode's simulated fetch. Throws AttachmentFetchError
 * with the reason a live fetch would have refused it.
 */
export async function checkPath(path: string): Promise<void> {
  const problem = pathProblem(path);
  if (problem) throw new AttachmentFetchError(`${path} refused: ${problem}`);
  const url = new URL(path);
  const checked = await checkedAddresses(url.hostname, urlPort(url)).catch((error: NodeJS.ErrnoException) => ({
    refused: `DNS lookup failed: ${error.code ?? error.message}`,
  }));
  if ('refused' in checked) throw new AttachmentFetchError(`${url.href} refused: ${checked.refused}`);
}

/**
 * GETs `path` for the fetch stage: at most `maxBytes` (counted as they arrive), done by `deadline`
 * (epoch ms; PATH_FETCH_TIMEOUT_MS from now by default), connected within PATH_CONNECT_TIMEOUT_MS,
 * only to addresses the guard allowed, redirects only on the same host. Throws
 * AttachmentFetchError with the reason.
 */
// machine time: `deadline` bounds the fetch's I/O
export async function fetchPath(
  path: string,
  maxBytes: number,
  deadline = Date.now() + PATH_FETCH_TIMEOUT_MS,
): Promise<Buffer> {
  let url = new URL(path);
  const host = url.hostname;
  for (let hop = 0; ; hop++) {
    const problem = pathProblem(url.href);
    if (problem) throw new AttachmentFetchError(`${url.href} refused: ${problem}`);
    const checked = await checkedAddresses(url.hostname, urlPort(url)).catch((error: NodeJS.ErrnoException) => ({
      refused: `DNS lookup failed: ${error.code ?? error.message}`,
    }));
    if ('refused' in checked) throw new AttachmentFetchError(`${url.href} refused: ${checked.refused}`);
    const response = await get(url, checked.addresses, deadline);
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400 && response.headers.location) {
      response.resume();
      const next = new URL(response.headers.location, url);
      if (next.hostname !== host)
        throw new AttachmentFetchError(`${url.href} redirects to another host (${next.hostname}): not followed`);
      if (hop >= MAX_REDIRECTS) throw new AttachmentFetchError(`${path}: more than ${MAX_REDIRECTS} redirects`);
      url = next;
      continue;
    }
    if (status < 200 || status >= 300) {
      response.resume();
      throw new AttachmentFetchError(`${url.href} answered ${status}`);
    }
    const declared = Number(response.headers['content-length']);
    if (declared > maxBytes) {
      response.destroy();
      throw new AttachmentFetchError(
        `${url.href} is ${declared} bytes: over the ${maxBytes} bytes left for this email's attachments`,
      );
    }
    return readBody(response, url.href, maxBytes, deadline);
  }
}

function get(url: URL, addresses: Parameters<typeof pinnedLookup>[0], deadline: number): Promise<IncomingMessage> {
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = transport.get(
      url,
      { lookup: pinnedLookup(addresses), headers: { 'user-agent': 'email-service-attachments/1', accept: '*/*' } },
      resolve,
    );
    const timer = setTimeout(
      () =>
        request.destroy(new AttachmentFetchError(`${url.href}: no answer within ${PATH_FETCH_TIMEOUT_MS / 1000} s`)),
      Math.max(0, deadline - Date.now()),
    );
    let connectTimer: NodeJS.Timeout | undefined;
    request.on('socket', (socket) => {
      if (!socket.connecting) return;
      connectTimer = setTimeout(
        () =>
          request.destroy(
            new AttachmentFetchError(`${url.href}: no connection within ${PATH_CONNECT_TIMEOUT_MS / 1000} s`),
          ),
        PATH_CONNECT_TIMEOUT_MS,
      );
      socket.once('connect', () => clearTimeout(connectTimer));
    });
    request.on('response', () => clearTimeout(timer));
    request.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      clearTimeout(connectTimer);
      reject(
        error instanceof AttachmentFetchError
          ? error
          : new AttachmentFetchError(`${url.href}: ${error.code ? `${error.code}: ` : ''}${error.message}`),
      );
    });
  });
}

function readBody(response: IncomingMessage, href: string, maxBytes: number, deadline: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (reason: string) => {
      clearTimeout(timer);
      response.destroy();
      reject(new AttachmentFetchError(reason));
    };
    const timer = setTimeout(
      () => fail(`${href}: not received within ${PATH_FETCH_TIMEOUT_MS / 1000} s`),
      Math.max(0, deadline - Date.now()),
    );
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return fail(`${href} is over the ${maxBytes} bytes left for this email's attachments`);
      chunks.push(chunk);
    });
    response.on('end', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    response.on('error', (error) => fail(`${href}: ${error.message}`));
  });
}

/** An attachment as SES v2's SendEmail takes it (Content.Simple.Attachments). */
export interface SesAttachment {
  FileName: string;
  RawContent: Uint8Array;
  ContentType: string;
  ContentDisposition: 'ATTACHMENT' | 'INLINE';
  ContentId?: string;
}

/**
 * The bytes of every attachment of an email, for the sender: all stored (the `path` ones by the
 * fetch stage, ./attachment-fetch.ts, before the email reached its send queue), read side by side.
 * The sender fetches nothing. Throws AttachmentFetchError when one is no longer stored (past the
 * content bucket's lifecycle), PathNotFetched for a `path` one never fetched (the sender hands the
 * email to the fetch stage).
 */
export async function attachmentsToSend(
  projectId: string,
  emailId: string,
  listed: (StoredAttachment | InlineAttachment)[],
): Promise<SesAttachment[]> {
  return Promise.all(
    listed.map(async (a): Promise<SesAttachment> => {
      if ('content' in a)
        return sesAttachment(
          { filename: a.filename, content_type: a.content_type ?? contentTypeFor(a.filename), content_id: null },
          Buffer.from(a.content, 'base64'),
        );
      const bytes = await storedAttachment(projectId, emailId, a.id);
      if (!bytes && a.path !== undefined && a.size === null)
        throw new PathNotFetched(`attachment ${a.filename ?? a.id} was never fetched`);
      if (!bytes) throw new AttachmentFetchError(`attachment ${a.filename ?? a.id} is no longer stored`);
      return sesAttachment(a, bytes);
    }),
  );
}

const sesAttachment = (
  a: Pick<StoredAttachment, 'filename' | 'content_type' | 'content_id'>,
  bytes: Buffer,
): SesAttachment => ({
  FileName: a.filename ?? 'attachment',
  RawContent: bytes,
  ContentType: a.content_type,
  ContentDisposition: a.content_id ? 'INLINE' : 'ATTACHMENT',
  ...(a.content_id ? { ContentId: a.content_id } : {}),
});
