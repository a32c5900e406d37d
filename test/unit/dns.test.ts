/** shared/platform/net/dns.ts: TXT lookups from the local stand-in's file (DNS_TXT_FILE), and names compared as DNS does. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DNS_TXT_FILE, dnsName, lookupTxt } from '../../shared/platform/net/dns';

describe('lookupTxt with the local stand-in', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dns-test-'));
  const file = join(dir, 'txt.json');
  const before = process.env[DNS_TXT_FILE];
  beforeAll(() => {
    process.env[DNS_TXT_FILE] = file;
  });
  afterAll(() => {
    if (before === undefined) delete process.env[DNS_TXT_FILE];
    else process.env[DNS_TXT_FILE] = before;
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers no records before the file exists', async () => {
    expect(await lookupTxt('_resend-claim.example.com')).toEqual([]);
  });

  it("answers a name's values, whatever the case and a trailing dot, and reads the file at every lookup", async () => {
    writeFileSync(file, JSON.stringify({ '_resend-claim.example.com': ['resend-domain-claim=abc'] }));
    expect(await lookupTxt('_Resend-Claim.EXAMPLE.com.')).toEqual(['resend-domain-claim=abc']);
    expect(await lookupTxt('other.example.com')).toEqual([]);
    writeFileSync(file, JSON.stringify({}));
    expect(await lookupTxt('_resend-claim.example.com')).toEqual([]);
  });

  it('normalizes names as DNS compares them', () => {
    expect(dnsName('Example.COM.')).toBe('example.com');
  });
});
