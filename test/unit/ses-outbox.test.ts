/**
 * The local SES's outbox (local/aws/ses-outbox.ts): what a runtime accepted comes back after a
 * kill, the events a send still owed are owed again, published ones are not, a line torn by the
 * kill is dropped, and a cleared store stays cleared.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SesOutbox } from '../../local/aws/ses-outbox';

const dir = mkdtempSync(join(tmpdir(), 'ses-outbox-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Mail = { messageId: string; to: string };

it('gives back the mail and the events still owed after a restart, without what was published or a torn last line', () => {
  const folder = join(dir, 'a');
  const file = join(folder, 'journal.jsonl');
  const first = new SesOutbox<Mail, string>(folder);
  expect(first.open()).toEqual({ mail: [], owed: [] });
  first.accepted({ messageId: 'm1', to: 'ada@example.com' }, 'm1', ['send', 'delivery']);
  first.accepted({ messageId: 'm2', to: 'bob@example.com' }, 'm2', ['send', 'bounce']);
  first.accepted({ messageId: 'm3', to: 'cy@example.com' }, 'm3', []); // no configuration set: nothing owed
  first.published('m1');
  // killed while writing a line (no close)
  appendFileSync(file, '{"published":"m');

  const second = new SesOutbox<Mail, string>(folder);
  expect(second.open()).toEqual({
    mail: [
      { messageId: 'm1', to: 'ada@example.com' },
      { messageId: 'm2', to: 'bob@example.com' },
      { messageId: 'm3', to: 'cy@example.com' },
    ],
    owed: [{ messageId: 'm2', events: ['send', 'bounce'] }],
  });
  // rewritten without the published send's events and the torn line
  expect(readFileSync(file, 'utf8').split('\n').filter(Boolean)).toHaveLength(4);
  second.close();
});

it('keeps a cleared store cleared, and keeps nothing without a file', () => {
  const folder = join(dir, 'b');
  const outbox = new SesOutbox<Mail, string>(folder);
  outbox.open();
  outbox.accepted({ messageId: 'm1', to: 'ada@example.com' }, 'm1', []);
  outbox.cleared();
  outbox.accepted({ messageId: 'm2', to: 'bob@example.com' }, 'm2', []);
  outbox.close();
  expect(new SesOutbox<Mail, string>(folder).open().mail).toEqual([{ messageId: 'm2', to: 'bob@example.com' }]);

  const inMemory = new SesOutbox<Mail, string>(undefined);
  inMemory.open();
  inMemory.accepted({ messageId: 'm1', to: 'ada@example.com' }, 'm1', ['send']);
  expect(inMemory.open()).toEqual({ mail: [], owed: [] });
});
