/**
 * The CDK app (`cdk synth`, `cdk deploy`): one stack, `EmailService`, in the region of `-c region=`
 * (lib/region.ts; default ap-southeast-2), with its route groups as nested stacks. cdk-nag's
 * AwsSolutions checks run on every synth: a finding that lib/email-service-stack.ts does not
 * acknowledge (with its reason) stops the deploy.
 */
import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { buildApp } from '../lib/email-service-stack';

const { app } = buildApp();
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
