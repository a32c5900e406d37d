/**
 * Resend's placeholder syntax beyond `{{{KEY}}}`: `|fallback`, `contact.<field>`, unpaired braces,
 * and the create/update check (placeholderProblems) built on them.
 */
import { placeholderProblems, placeholdersIn, render, renderHeader, variablesIn } from '../../shared/templates/render';

describe('render: fallbacks', () => {
  it('uses the fallback when the value is missing, null or empty, and the value otherwise', () => {
    const text = 'Hi {{{FIRST_NAME|there}}}';
    expect(render(text, { FIRST_NAME: 'Ann' }).text).toBe('Hi Ann');
    for (const values of [{}, { FIRST_NAME: null }, { FIRST_NAME: undefined }, { FIRST_NAME: '' }]) {
      expect(render(text, values)).toEqual({ text: 'Hi there', missing: [], malformed: [] });
    }
  });

  it('keeps a value of 0, false or spaces: only missing, null and the empty string fall back', () => {
    expect(render('{{{A|x}}} {{{B|x}}} [{{{C|x}}}]', { A: 0, B: false, C: ' ' }).text).toBe('0 false [ ]');
  });

  it('takes a fallback with spaces and quotes literally, trimming the spaces at its ends', () => {
    expect(render('{{{ FIRST_NAME | dear friend }}}, {{{A|"quoted"}}} {{{B|it\'s a|b}}}', {}).text).toBe(
      'dear friend, "quoted" it\'s a|b',
    );
  });

  it('escapes the fallback of {{KEY|fallback}} in html as it escapes a value, and not in plain text', () => {
    expect(render('{{NAME|<Tom & "Jerry">}} / {{{NAME|<b>}}}', {}).text).toBe(
      '&lt;Tom &amp; &quot;Jerry&quot;&gt; / <b>',
    );
    expect(render('{{NAME|<Tom & Jerry>}}', {}, { escape: false }).text).toBe('<Tom & Jerry>');
  });

  it('renders an empty fallback as nothing, and an empty value without a fallback as nothing, neither missing', () => {
    expect(render('[{{{A|}}}][{{{B}}}]', { B: '' })).toEqual({ text: '[][]', missing: [], malformed: [] });
  });

  it('puts a fallback into a subject header-safe, without escaping', () => {
    expect(renderHeader('Hi {{FIRST_NAME|A & B}}', { FIRST_NAME: '' }).text).toBe('Hi A & B');
    expect(renderHeader('Hi {{{FIRST_NAME|there}}}', { FIRST_NAME: 'Ann\r\nBcc: x@example.com' }).text).toBe(
      'Hi Ann Bcc: x@example.com',
    );
  });

  it('does not render a fallback or a value again', () => {
    expect(render('{{{A|{{{B}}}}}}', { B: 'no' }).text).toBe('{{{A|{{{B}}}}}}');
    expect(render('{{{A|$& $1}}}', {}).text).toBe('$& $1');
  });
});

describe('render: contact.<field>', () => {
  it('looks `contact.<field>` up as its own key, with or without a fallback, in both forms', () => {
    const values = { 'contact.first_name': 'Ann', 'contact.plan': '<pro>' };
    expect(render('{{{contact.first_name|there}}} {{contact.plan}} {{{ contact.last_name | x }}}', values).text).toBe(
      'Ann &lt;pro&gt; x',
    );
    expect(render('{{{contact.first_name}}}', {}).missing).toEqual(['contact.first_name']);
  });

  it('leaves other dotted names alone', () => {
    const text = '{{X.Y}} {{{contacts.a}}} {{contact.}} {{contact.a.b}}';
    expect(render(text, { 'X.Y': 'no', 'contacts.a': 'no' })).toEqual({ text, missing: [], malformed: [] });
  });
});

describe('render: unpaired braces', () => {
  it('reports a placeholder whose braces do not pair, once, and leaves it as written', () => {
    const out = render(
      'Hi {{{FIRST_NAME|there}} and {{A}}} and {{{FIRST_NAME|there}}',
      { FIRST_NAME: 'Ann', A: 'a' },
      { missing: 'empty' },
    );
    expect(out).toEqual({
      text: 'Hi {{{FIRST_NAME|there}} and {{A}}} and {{{FIRST_NAME|there}}',
      missing: [],
      malformed: ['{{{FIRST_NAME|there}}', '{{A}}}'],
    });
  });

  it('still leaves four braces and text that is no placeholder alone', () => {
    const text = '{{{{A}}}} {{{{ }}}} {{a-b}} { {X} }';
    expect(render(text, { A: 'a', X: 'x' })).toEqual({ text, missing: [], malformed: [] });
  });
});

describe('placeholdersIn and variablesIn', () => {
  it('lists each placeholder with its key, fallback, form and whether its braces pair', () => {
    expect(placeholdersIn('{{{A|x y }}} {{contact.b}} {{{C}}')).toEqual([
      { raw: '{{{A|x y }}}', key: 'A', fallback: 'x y', raw_form: true, malformed: false },
      { raw: '{{contact.b}}', key: 'contact.b', fallback: undefined, raw_form: false, malformed: false },
      { raw: '{{{C}}', key: 'C', fallback: undefined, raw_form: true, malformed: true },
    ]);
  });

  it('counts keys with a fallback as used and malformed ones not', () => {
    expect(variablesIn('{{{A|x}}} {{contact.b}} {{{C}}')).toEqual(['A', 'contact.b']);
  });
});

describe('placeholderProblems', () => {
  const known = (key: string) => key === 'FIRST_NAME';

  it('names each malformed placeholder and each unknown key without a fallback, by field, once', () => {
    const problems = placeholderProblems(
      {
        subject: 'Hi {{{FIRST_NAME|there}}',
        html: '<p>{{{NICK}}} {{{NICK}}} {{{FIRST_NAME}}} {{{AGE|?}}}</p>',
        text: null,
      },
      known,
      'is no contact field or property of this project',
    );
    expect(problems).toEqual([
      {
        code: 'malformed_placeholder',
        message: expect.stringContaining('{{{FIRST_NAME|there}}: its braces do not pair'),
        path: 'subject',
      },
      {
        code: 'unresolvable_placeholder',
        message: expect.stringContaining('{{{NICK}}}: NICK is no contact field or property of this project'),
        path: 'html',
      },
    ]);
  });

  it('is empty for content whose placeholders all resolve', () => {
    expect(placeholderProblems({ html: '{{{FIRST_NAME}}} {{X|y}}', text: undefined }, known, '')).toEqual([]);
  });
});
