import { guardThresholds } from '#shared/emails/reputation-thresholds';
import { pauseReason, type Reputation } from '#shared/emails/reputation';

const day = (sent: number, complained: number, bounced = 0): Reputation => ({
  sent,
  complained,
  bounced,
  bounce_rate: sent ? bounced / sent : 0,
  complaint_rate: sent ? complained / sent : 0,
  window: '24h',
});

describe('the reputation guard thresholds', () => {
  it('does not pause a small project for one or two spam reports', () => {
    expect(pauseReason(day(200, 1))).toBeUndefined();
    expect(pauseReason(day(1_249, 1))).toBeUndefined();
    expect(pauseReason(day(500, 2))).toBeUndefined();
  });

  it('pauses once there are enough complaints and the rate is over the limit', () => {
    expect(pauseReason(day(500, 3))).toMatch(/complaint rate 0\.60%/);
    expect(pauseReason(day(10_000, 3))).toBeUndefined(); // 0.03%: under the rate
    expect(pauseReason(day(10_000, 8))).toMatch(/complaint rate 0\.08%/);
  });

  it('still pauses on bounces alone, whatever the complaints', () => {
    expect(pauseReason(day(200, 0, 8))).toMatch(/bounce rate 4\.00%/);
  });

  it('reads the minimum number of complaints from the environment', () => {
    expect(guardThresholds({}).minComplaints).toBe(3);
    expect(guardThresholds({ REPUTATION_MIN_COMPLAINTS: '1' }).minComplaints).toBe(1);
    expect(guardThresholds({ REPUTATION_MIN_COMPLAINTS: 'x' }).minComplaints).toBe(3);
    expect(pauseReason(day(200, 1), guardThresholds({ REPUTATION_MIN_COMPLAINTS: '1' }))).toMatch(/complaint rate/);
  });
});
