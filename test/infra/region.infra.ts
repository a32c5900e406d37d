/**
 * `-c region=<region>` (lib/region.ts): the stack synthesized for the default region and for
 * eu-west-1, and every region-bearing value of the templates (SES ARNs, the asset bucket, the
 * outputs, the API certificate) follows the region asked for; no function is given a region (on
 * Lambda they read AWS_REGION, which Lambda sets: test/unit/aws-region.test.ts). A region without
 * SES receiving is refused before anything is built.
 */
import { NestedStack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { buildApp } from '../../lib/email-service-stack';
import { cdkJsonContext, type Synthesized, synth, synthesized } from '../support/synth';

/** Every template of the app (the stack's and its nested stacks') as text. */
function templatesText({ stack }: Synthesized): string {
  const nested = stack.node.findAll().filter((c): c is NestedStack => NestedStack.isNestedStack(c));
  return JSON.stringify([Template.fromStack(stack).toJSON(), ...nested.map((n) => Template.fromStack(n).toJSON())]);
}

const certificateIn = (region: string) => `arn:aws:acm:${region}:123456789012:certificate/abcd-1234`;

describe.each([
  ['the default, ap-southeast-2', 'ap-southeast-2', 'eu-west-1', () => synthesized()],
  [
    '-c region=eu-west-1',
    'eu-west-1',
    'ap-southeast-2',
    () =>
      synth({
        bundle: false,
        context: {
          ...cdkJsonContext,
          region: 'eu-west-1',
          apiDomainName: 'email-api.example.com',
          apiCertificateArn: certificateIn('eu-west-1'),
        },
      }),
  ],
])('a stack synthesized for %s', (_name, region, other, build) => {
  let synthesizedApp: Synthesized;
  let text: string;
  beforeAll(() => {
    synthesizedApp = build();
    text = templatesText(synthesizedApp);
  });

  it('is in that region, and the functions are deployed from its asset bucket', () => {
    expect(synthesizedApp.stack.region).toBe(region);
    const functions = Object.values(synthesizedApp.resources).filter((r) => r.Type === 'AWS::Lambda::Function');
    expect(functions.length).toBeGreaterThan(100);
    for (const fn of functions) expect(fn.Properties.Code.S3Bucket['Fn::Sub']).toMatch(new RegExp(`-${region}$`));
  });

  it("grants SES on the region's identities, configuration sets, tenants and managed reputation policies", () => {
    // an ARN of the template reads `"arn:",{"Ref":"AWS::Partition"},":ses:<region>:",{"Ref":"AWS::AccountId"},":<resource>"`
    const sesArns = new Set(
      [...text.matchAll(/":ses:([a-z0-9-]+):(?:",\{"Ref":"AWS::AccountId"\},":)?([^"]+)"/g)].map(
        ([, arnRegion, resource]) => `${arnRegion} ${resource}`,
      ),
    );
    expect([...sesArns].sort()).toEqual(
      expect.arrayContaining([
        `${region} identity/*`,
        `${region} configuration-set/es-*`,
        `${region} tenant/es-*`,
        `${region} aws:reputation-policy/*`,
      ]),
    );
    expect([...sesArns].filter((arn) => !arn.startsWith(`${region} `))).toEqual([]);
  });

  it('tells the operator the region to activate inbound mail in', () => {
    synthesizedApp.template.hasOutput('ReceiptRuleSetName', {
      Description: Match.stringLikeRegexp(`--region ${region}$`),
    });
  });

  it('names no other region anywhere, and gives no function a region of its own', () => {
    expect(text.match(new RegExp(`.{0,100}${other}.{0,100}`, 'g'))).toBeNull(); // the places it appears, if any
    for (const fn of Object.values(synthesizedApp.resources).filter((r) => r.Type === 'AWS::Lambda::Function')) {
      const variables = fn.Properties.Environment?.Variables ?? {};
      expect(Object.keys(variables)).not.toContain('AWS_REGION'); // Lambda's own, reserved: it sets the region the function runs in
      expect(JSON.stringify(variables)).not.toMatch(/ap-southeast-2|eu-west-1/);
    }
  });

  it("takes an API certificate in the stack's region only", () => {
    const withDomain = (certificateRegion: string) => () =>
      buildApp({
        bundle: false,
        context: {
          ...cdkJsonContext,
          region,
          apiDomainName: 'email-api.example.com',
          apiCertificateArn: certificateIn(certificateRegion),
        },
      });
    expect(withDomain(other)).toThrow(new RegExp(`apiCertificateArn must be an ACM certificate ARN in ${region}`));
    if (region === 'eu-west-1') {
      const domain = Object.values(synthesizedApp.resources).find((r) => r.Type === 'AWS::ApiGatewayV2::DomainName');
      expect(domain?.Properties.DomainNameConfigurations[0].CertificateArn).toBe(certificateIn('eu-west-1'));
    }
  });
});

describe('a region the stack cannot be deployed to', () => {
  it('refuses a region where SES receives no mail, naming the regions that do', () => {
    expect(() => buildApp({ bundle: false, context: { ...cdkJsonContext, region: 'eu-south-1' } })).toThrow(
      /SES email receiving.*not offered in eu-south-1.*eu-west-1.*-c sesReceivingInRegion=true/,
    );
  });

  it('builds there when the deploy vouches that AWS has added receiving since (-c sesReceivingInRegion=true)', () => {
    expect(
      buildApp({ bundle: false, context: { ...cdkJsonContext, region: 'eu-south-1', sesReceivingInRegion: 'true' } })
        .stack.region,
    ).toBe('eu-south-1');
  });

  it('refuses what is no region code', () => {
    expect(() => buildApp({ bundle: false, context: { ...cdkJsonContext, region: 'Ireland' } })).toThrow(
      /region must be an AWS region code like eu-west-1, got "Ireland"/,
    );
  });
});
