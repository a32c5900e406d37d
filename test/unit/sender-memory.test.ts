/**
 * The sender's memory budget (shared/emails/sender-memory.ts, issue 32, 3): what an email is
 * counted at from its item, and how the emails of one instance share the budget: small ones side by
 * side, large ones one at a time, first come first served, and one that finds no room in time gets
 * nothing (the sender then writes nothing and the message comes back).
 */
import { MAX_ATTACHMENT_BYTES } from '../../shared/emails/attachments';
import { MAX_EMAIL_CONTENT_BYTES } from '../../shared/emails/emails';
import {
  ATTACHMENT_FACTOR,
  CONTENT_FACTOR,
  MemoryBudget,
  SENDER_MEMORY_BUDGET_BYTES,
  sendFootprint,
} from '../../shared/emails/sender-memory';

const MB = 1024 * 1024;
const email = (content_bytes: number, attachment_bytes?: number) => ({
  project_id: 'p',
  id: 'e',
  content_bytes,
  attachment_bytes,
});

describe('an email is counted from its item', () => {
  it('at its content and attachments times their factors', async () => {
    expect(await sendFootprint(email(20_000))).toBe(CONTENT_FACTOR * 20_000);
    expect(await sendFootprint(email(20_000, 3 * MB))).toBe(CONTENT_FACTOR * 20_000 + ATTACHMENT_FACTOR * 3 * MB);
  });

  it('the largest email fits the budget alone, at what it will hold', async () => {
    const largest = CONTENT_FACTOR * MAX_EMAIL_CONTENT_BYTES + ATTACHMENT_FACTOR * MAX_ATTACHMENT_BYTES;
    expect(largest).toBeLessThanOrEqual(SENDER_MEMORY_BUDGET_BYTES);
    expect(await sendFootprint(email(MAX_EMAIL_CONTENT_BYTES, MAX_ATTACHMENT_BYTES))).toBe(largest);
    // 256 MB less a fresh Lambda Node process (64 MB) less room for the rest (32 MB)
    expect(SENDER_MEMORY_BUDGET_BYTES).toBe(160 * MB);
  });
});

describe('the emails of one instance share the budget', () => {
  const later = () => Date.now() + 5_000;

  it('lets ten 1 MB emails go side by side', async () => {
    const budget = new MemoryBudget(SENDER_MEMORY_BUDGET_BYTES);
    const releases = await Promise.all(
      Array.from({ length: 10 }, async () => budget.take(await sendFootprint(email(10_000, MB)), later())),
    );
    expect(releases.every((r) => typeof r === 'function')).toBe(true);
    expect(budget.inUse).toBeGreaterThan(10 * ATTACHMENT_FACTOR * MB);
  });

  it('sends ten of the largest emails one at a time, in their order', async () => {
    const budget = new MemoryBudget(SENDER_MEMORY_BUDGET_BYTES);
    const size = await sendFootprint(email(MAX_EMAIL_CONTENT_BYTES, MAX_ATTACHMENT_BYTES));
    let inFlight = 0;
    let most = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const release = await budget.take(size, later());
        expect(release).toBeDefined();
        inFlight += 1;
        most = Math.max(most, inFlight);
        order.push(i);
        await new Promise((resolve) => setImmediate(resolve)); // the send
        inFlight -= 1;
        release!();
      }),
    );
    expect(most).toBe(1);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(budget.inUse).toBe(0);
  });

  it('lets a large email go once the small ones before it are done, and no small one overtakes it', async () => {
    const budget = new MemoryBudget(100);
    const small = await budget.take(60, later());
    const events: string[] = [];
    const large = budget.take(80, later()).then((release) => (events.push('large'), release));
    const smallAfter = budget.take(10, later()).then((release) => (events.push('small after'), release));
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual([]); // the large one waits, and the small one behind it too
    small!();
    (await large)!();
    (await smallAfter)!();
    expect(events).toEqual(['large', 'small after']);
  });

  it('gives an email that finds no room before its deadline nothing, and lets the next one go', async () => {
    const budget = new MemoryBudget(100);
    const held = await budget.take(100, later());
    expect(await budget.take(50, Date.now() + 20)).toBeUndefined();
    expect(budget.inUse).toBe(100);
    held!();
    expect(await budget.take(100, later())).toBeDefined();
  });
});
