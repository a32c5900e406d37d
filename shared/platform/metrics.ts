/**
 * Custom metrics in CloudWatch's Embedded Metric Format: one JSON log line that CloudWatch Logs
 * turns into a metric, so counting a send or a webhook delivery costs no PutMetricData call and
 * no latency. Written only on Lambda (AWS_LAMBDA_FUNCTION_NAME is set there): locally there is no
 * CloudWatch to read the line, and the runtime's log stays readable. The dashboard
 * (lib/constructs/monitoring.ts) graphs them.
 */
import { now } from './clock';

export const METRICS_NAMESPACE = 'EmailService';

/** The metrics the workers emit, and the dimension each may carry. */
export type MetricName = 'Sent' | 'SendThrottled' | 'WebhookDeliveries' | 'ProjectSendingPaused';

/** The EMF line for `value` of `name` (a count), with `dimensions`. */
export function metricLine(
  name: MetricName,
  value: number,
  dimensions: Record<string, string> = {},
  timestamp = now(),
): string {
  return JSON.stringify({
    _aws: {
      Timestamp: timestamp,
      CloudWatchMetrics: [
        {
          Namespace: METRICS_NAMESPACE,
          Dimensions: [Object.keys(dimensions)],
          Metrics: [{ Name: name, Unit: 'Count' }],
        },
      ],
    },
    ...dimensions,
    [name]: value,
  });
}

/** Counts `value` of `name` on Lambda; nothing elsewhere. */
export function countMetric(name: MetricName, dimensions: Record<string, string> = {}, value = 1): void {
  if (!process.env.AWS_LAMBDA_FUNCTION_NAME) return;
  process.stdout.write(`${metricLine(name, value, dimensions)}\n`);
}
