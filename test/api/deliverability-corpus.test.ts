/**
 * Every reporter's format of the report corpus (test/fixtures/reports: its README says where each
 * comes from) end to end: one report of each, its reported domain made the test's own (the
 * corpus's names are example domains any test may hold), packed as it came (plain, gzip or zip),
 * mailed over SMTP to the domain's report address, and found through the API.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { gunzipSync, unzipSync, zipSync } from 'fflate';
import { api } from '../support/http';
import { deliverAttachments } from '../support/smtp';
import { createOtherProject, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';

useRuntimeTable();

const CORPUS = join(__dirname, '..', 'fixtures', 'reports');

interface Entry {
  file?: string;
  kind: 'dmarc' | 'tls';
  reporter: string;
  content_type: string;
  expect: 'report' | 'drop';
  domain?: string;
  report_id?: string;
  messages?: number;
}

/** The first report of each reporter's format that names its domain (a TLS report without a policy domain cannot be matched). */
const formats = (() => {
  const manifest = JSON.parse(readFileSync(join(CORPUS, 'manifest.json'), 'utf8')) as Entry[];
  const first = new Map<string, Entry>();
  for (const entry of manifest)
    if (entry.expect === 'report' && entry.file && entry.domain && entry.reporter !== 'attacker')
      if (!first.has(`${entry.kind} ${entry.reporter}`)) first.set(`${entry.kind} ${entry.reporter}`, entry);
  return [...first.values()];
})();

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The file with every mention of `from` (any case) made `to`, packed as it was. */
function renamed(bytes: Buffer, from: string, to: string): Buffer {
  const swap = (data: Uint8Array) =>
    Buffer.from(
      Buffer.from(data)
        .toString('utf8')
        .replace(new RegExp(escapeRegExp(from), 'gi'), to),
    );
  // fflate's gunzip: Mimecast's reports end in a CRLF after the gzip trailer, which zlib refuses
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return gzipSync(swap(gunzipSync(bytes)));
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) {
    const entries = unzipSync(bytes);
    return Buffer.from(zipSync(Object.fromEntries(Object.entries(entries).map(([name, data]) => [name, swap(data)]))));
  }
  return swap(bytes);
}

const mail = (to: string, entry: Entry, bytes: Buffer) =>
  deliverAttachments({
    from: 'reports@reporter.example',
    to,
    subject: `Report domain: ${entry.domain} Report-ID: ${entry.report_id}`,
    text: 'This is an aggregate report.',
    files: [{ name: entry.file!.split('/').pop()!, type: entry.content_type, bytes }],
  });

describe('the report corpus over SMTP', () => {
  it("keeps one report of every reporter's format, DMARC and TLS, mailed to the domain's report addresses", async () => {
    expect(formats.length).toBeGreaterThanOrEqual(30);
    const project = await createOtherProject();
    const as = { key: project.key };
    const name = `corpus-${Date.now().toString(36)}.example.com`;
    const created = await api.post('/domains', { name }, as);
    expect(created.status).toBe(201);
    const domainId = created.body.id as string;

    for (const entry of formats)
      await mail(
        `${entry.kind}+${domainId}@reports.localhost`,
        entry,
        renamed(readFileSync(join(CORPUS, entry.file!)), entry.domain!, name),
      );

    const dmarc = formats.filter((e) => e.kind === 'dmarc');
    const tls = formats.filter((e) => e.kind === 'tls');
    const summary = await waitFor(
      () => api.get(`/domains/${domainId}/dmarc?days=400`, as),
      (r) => r.body.reports === dmarc.length,
      60_000,
    );
    expect(summary.body.dropped).toEqual({});
    expect(summary.body.messages).toBe(dmarc.reduce((n, e) => n + (e.messages ?? 0), 0));
    const listed = await waitFor(
      () => api.get(`/domains/${domainId}/tls-reports?limit=100`, as),
      (r) => r.body.data?.length === tls.length,
      60_000,
    );
    expect(listed.body.dropped).toEqual({});
    expect(listed.body.data.map((r: { report_id: string }) => r.report_id).sort()).toEqual(
      // some reporters name the domain in the report id: renamed with the rest
      tls.map((e) => e.report_id!.replace(new RegExp(escapeRegExp(e.domain!), 'gi'), name)).sort(),
    );
  }, 120_000);
});
