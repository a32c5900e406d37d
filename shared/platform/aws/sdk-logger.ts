/**
 * The logger every AWS SDK client of the service is given. The SDK's default (NoOpLogger) has an
 * `info` method that does nothing, and the SDK's logger middleware, seeing one, copies every call's
 * input and output through the operation's sensitive-field filter for a log line nobody keeps: 3% of
 * the CPU of a POST /contacts under load (a --cpu-prof of bench/api-throughput.ts). Without `info`
 * that middleware does nothing (it calls `logger?.info?.(...)`); the methods the SDK calls without
 * asking whether they exist (`debug`, `warn`) do nothing here, as the default's did.
 */
import type { Logger } from '@smithy/types';

const nothing = () => {};

export const sdkLogger = { debug: nothing, warn: nothing, error: nothing, trace: nothing } as unknown as Logger;
