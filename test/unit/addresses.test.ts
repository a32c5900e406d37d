import { isAddress, mailboxProblem, nameProblem } from '#shared/platform/mail/addresses';
import { createContactBody } from '#shared/audience/model';

const BIDI = [
  '\u202A',
  '\u202B',
  '\u202C',
  '\u202D',
  '\u202E',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  '\u200E',
  '\u200F',
  '\u061C',
];
const FULL_WIDTH = ['\uFF20', '\uFF1C', '\uFF1E', '\uFF0E'];

describe('names', () => {
  it.each(BIDI.map((c) => [`U+${c.codePointAt(0)!.toString(16).toUpperCase()}`, c]))(
    'refuses the bidi control %s in display names and contact names',
    (_name, c) => {
      expect(mailboxProblem(`Bank${c}kaerf <ok@example.com>`)).toMatch(/bidi|direction/);
      expect(createContactBody.safeParse({ email: 'ok@example.com', first_name: `Ada${c}` }).success).toBe(false);
      expect(createContactBody.safeParse({ email: 'ok@example.com', last_name: `${c}Lovelace` }).success).toBe(false);
    },
  );

  it.each(FULL_WIDTH.map((c) => [c]))('refuses the full-width %s (the same as its ASCII form after NFKC)', (c) => {
    expect(mailboxProblem(`support${c}bank <ok@example.com>`)).toBeDefined();
    expect(createContactBody.safeParse({ email: 'ok@example.com', first_name: `support${c}bank` }).success).toBe(false);
  });

  it('keeps ordinary names, dots, accents and right-to-left scripts', () => {
    for (const name of ['Ada Lovelace', 'J. R. R. Tolkien', 'Zoë Ångström', 'שלום', 'محمد', '山田 太郎', 'ＡＢＣ']) {
      expect({ name, problem: nameProblem(name) }).toEqual({ name, problem: undefined });
      expect(mailboxProblem(`${name} <ok@example.com>`)).toBeUndefined();
      expect(createContactBody.safeParse({ email: 'ok@example.com', first_name: name }).success).toBe(true);
    }
  });
});

describe('local parts', () => {
  it.each([
    'a[b@example.com',
    'a]b@example.com',
    'a\\b@example.com',
    '.a@example.com',
    'a.@example.com',
    'a..b@example.com',
    'a\u202Eb@example.com',
  ])('refuses %s (not a dot-atom, and quoted local parts are not taken)', (address) => {
    expect(isAddress(address)).toBe(false);
    expect(mailboxProblem(address)).toBeDefined();
    expect(mailboxProblem(`Name <${address}>`)).toBeDefined();
    expect(createContactBody.safeParse({ email: address }).success).toBe(false);
  });

  it.each([
    'ada@example.com',
    'ada.lovelace+news@example.com',
    "o'brien@example.com",
    'a!#$%&*/=?^_`{|}~-b@example.com',
    'zoë@example.com',
  ])('takes the dot-atom %s', (address) => {
    expect(isAddress(address)).toBe(true);
    expect(mailboxProblem(`Name <${address}>`)).toBeUndefined();
    expect(createContactBody.safeParse({ email: address }).success).toBe(true);
  });
});
