/**
 * The attachment rules that hold on AWS, where the local runtime's http-to-loopback allowance is
 * off (ALLOW_HTTP_LOOPBACK_WEBHOOKS unset): which `path` URLs the service refuses to fetch, and the
 * content types and file names it infers.
 */
import {
  AttachmentFetchError,
  contentTypeFor,
  fetchPath,
  filenameFromPath,
  pathProblem,
} from '../../shared/emails/attachments';

const saved = process.env.ALLOW_HTTP_LOOPBACK_WEBHOOKS;
beforeAll(() => {
  delete process.env.ALLOW_HTTP_LOOPBACK_WEBHOOKS; // as on AWS
});
afterAll(() => {
  if (saved !== undefined) process.env.ALLOW_HTTP_LOOPBACK_WEBHOOKS = saved;
});

describe('path attachments on AWS settings', () => {
  it.each([
    'https://127.0.0.1/a.pdf',
    'https://localhost/a.pdf',
    'https://[::1]/a.pdf',
    'https://0x7f.1/a.pdf',
    'https://169.254.169.254/latest/meta-data/',
    'https://[fe80::1]/a.pdf',
    'https://10.1.2.3/a.pdf',
    'https://192.168.0.1/a.pdf',
    'http://files.example.com/a.pdf',
    'ftp://files.example.com/a.pdf',
    'https://user:secret@files.example.com/a.pdf',
    'not a url',
  ])('refuses %s', (path) => {
    expect(pathProblem(path)).toEqual(expect.any(String));
  });

  it('accepts https to a public name', () => {
    expect(pathProblem('https://files.example.com/a.pdf')).toBeUndefined();
  });

  it('refuses loopback again when it fetches (each redirect target is checked the same way), before connecting', async () => {
    await expect(fetchPath('https://localhost.:1/a.pdf', 1024)).rejects.toThrow(AttachmentFetchError);
    await expect(fetchPath('https://localhost.:1/a.pdf', 1024)).rejects.toThrow(/refused/);
  });
});

describe('inferred names and types', () => {
  it.each([
    ['report.PDF', 'application/pdf'],
    ['photo.jpeg', 'image/jpeg'],
    ['sheet.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
    ['notes', 'application/octet-stream'],
    [null, 'application/octet-stream'],
  ])('%s is %s', (name, type) => {
    expect(contentTypeFor(name)).toBe(type);
  });

  it('takes the file name from the URL path, decoded, and none from a bare host or a name with control characters', () => {
    expect(filenameFromPath('https://x.example/files/annual%20report.pdf?v=2')).toBe('annual report.pdf');
    expect(filenameFromPath('https://x.example/')).toBeNull();
    expect(filenameFromPath('https://x.example/a%0Ab.pdf')).toBeNull();
  });
});
