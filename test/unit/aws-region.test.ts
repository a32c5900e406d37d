/**
 * The functions' region (shared/platform/aws/region.ts): read from AWS_REGION, which Lambda sets to
 * the region the function runs in (the stack's `-c region=`), at each call: so what a function
 * answers that names the region (SES's Message-ID of a sent email, the `region` a domain create
 * accepts) follows the deployment. The domain's DNS record values take the same awsRegion()
 * (shared/domains/domains.ts) into their regional hosts: test/unit/domain-records.test.ts.
 */
import { awsRegion, sesMessageIdHeader } from '../../shared/platform/aws/region';
import { createDomain } from '../../shared/domains/domains';
import { toSummary } from '../../shared/emails/record';

const saved = process.env.AWS_REGION;
const caller = {
  projectId: '5d0c3c4e-9a51-4c3e-8f2e-1b7a2f6c0d11',
  livemode: true,
  permission: 'full_access',
} as const;
afterEach(() => {
  if (saved === undefined) delete process.env.AWS_REGION;
  else process.env.AWS_REGION = saved;
});

/** A sent email as the table holds it: SES took it as `ses-id-1`. */
const sentEmail = {
  id: '0b7e3c1a-1f5e-4d1c-9a55-3a8e2f4c9d10',
  from: 'news@example.com',
  to: ['ann@example.org'],
  subject: 'hi',
  status: 'sent',
  livemode: true,
  message_id: 'ses-id-1',
  created_at: '2026-11-26T00:00:00.000Z',
};

describe.each(['ap-southeast-2', 'eu-west-1'])('a function running in %s (AWS_REGION)', (region) => {
  beforeEach(() => {
    process.env.AWS_REGION = region;
  });

  it('is in that region', () => {
    expect(awsRegion()).toBe(region);
  });

  it("names SES's Message-ID of a sent email in that region", () => {
    expect(sesMessageIdHeader('ses-id-1')).toBe(`<ses-id-1@${region}.amazonses.com>`);
    expect(toSummary(sentEmail as never).message_id).toBe(`<ses-id-1@${region}.amazonses.com>`);
  });

  it('refuses a domain created in another region, naming its own (before any read or write)', async () => {
    const other = region === 'eu-west-1' ? 'ap-southeast-2' : 'eu-west-1';
    await expect(createDomain(caller, { name: 'example.com', region: other })).rejects.toMatchObject({
      statusCode: 422,
      errors: [{ code: 'invalid_value', path: 'region', message: `this deployment sends from ${region} only` }],
    });
  });
});

it("names SES's us-east-1 Message-ID host as SES does (email.amazonses.com)", () => {
  process.env.AWS_REGION = 'us-east-1';
  expect(sesMessageIdHeader('ses-id-1')).toBe('<ses-id-1@email.amazonses.com>');
});

it('says so when no region is set, rather than assume one', () => {
  delete process.env.AWS_REGION;
  expect(() => awsRegion()).toThrow('AWS_REGION is not set');
});
