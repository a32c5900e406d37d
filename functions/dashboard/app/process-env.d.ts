/**
 * The one Node global the console's shared imports name: shared/emails/reputation-thresholds.ts reads
 * `process.env` as a default argument, which the console never leaves to its default (it passes `{}`),
 * so nothing reads it in the browser. Declared here rather than Node's types, which would let browser
 * code use every Node API unchecked.
 */
declare const process: { env: Record<string, string | undefined> };
