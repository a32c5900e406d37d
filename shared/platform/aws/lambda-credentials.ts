/**
 * The credential provider every deployed function's AWS clients use, in place of the SDK's default
 * chain: lib/bundling.ts aliases `@aws-sdk/credential-provider-node` to this module when it bundles a
 * function. Lambda hands a function its role's credentials in the environment (AWS_ACCESS_KEY_ID,
 * AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), so the rest of the default chain (profiles, SSO, login,
 * web identity, processes, container and instance metadata, with the STS and SSO clients they bring)
 * is dead weight: about 110 KB of every bundle (a quarter of it) and of every cold start's module load.
 * The local runtime runs the sources unbundled and keeps the SDK's own chain.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

/** Same name and call shape as the SDK's `defaultProvider`, which each client's runtime config calls. */
export const defaultProvider = (init?: Parameters<typeof fromEnv>[0]) => fromEnv(init);
