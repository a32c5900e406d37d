/** The CDK app (`cdk synth`, `cdk deploy`): one stack, `EmailService`, in ap-southeast-2. */
import { buildApp } from '../lib/email-service-stack';

buildApp().app.synth();
