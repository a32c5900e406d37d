import { escapeHtml, headerSafeValue, render, renderHeader, variablesIn } from '../../shared/templates/render';

describe('render', () => {
  it('inserts {{{KEY}}} as it is and {{KEY}} HTML-escaped', () => {
    const values = { NAME: '<b>Ann & "Bo"</b>', QUOTE: "it's" };
    expect(render('{{{NAME}}} / {{NAME}} / {{QUOTE}}', values).text).toBe(
      `<b>Ann & "Bo"</b> / &lt;b&gt;Ann &amp; &quot;Bo&quot;&lt;/b&gt; / it&#39;s`,
    );
  });

  it('does not escape {{KEY}} with escape: false (plain text, subjects)', () => {
    expect(render('Hi {{NAME}}', { NAME: 'A & B <x>' }, { escape: false }).text).toBe('Hi A & B <x>');
  });

  it('allows spaces inside the braces and renders numbers, booleans and zero', () => {
    expect(render('{{ PRICE }} {{{ COUNT }}} {{OK}}', { PRICE: 499.5, COUNT: 0, OK: false }).text).toBe(
      '499.5 0 false',
    );
  });

  it('reports missing keys once each, in order, and keeps them in place by default', () => {
    const out = render('{{A}} {{{B}}} {{A}} {{C}}', { C: 'c' });
    expect(out.missing).toEqual(['A', 'B']);
    expect(out.text).toBe('{{A}} {{{B}}} {{A}} c');
  });

  it('treats null and undefined values as missing; missing: empty removes them', () => {
    const out = render('[{{A}}][{{{B}}}]', { A: null, B: undefined }, { missing: 'empty' });
    expect(out).toEqual({ text: '[][]', missing: ['A', 'B'], malformed: [] });
  });

  it('looks keys up exactly: case matters and nothing comes from the prototype', () => {
    const out = render('{{name}} {{constructor}} {{toString}}', { NAME: 'x' });
    expect(out.missing).toEqual(['name', 'constructor', 'toString']);
  });

  it('leaves anything that is not a variable alone', () => {
    const text = '{{first name}} {{}} {{a-b}} { {X} } {{{{ }}}} {{X.Y}}';
    expect(render(text, { X: 'x' })).toEqual({ text, missing: [], malformed: [] });
  });

  it('does not render again what a value inserts, and takes "$" in values literally', () => {
    expect(render('{{{A}}}', { A: '{{{B}}} $& $1', B: 'no' }).text).toBe('{{{B}}} $& $1');
  });

  it('renders every occurrence, also next to each other', () => {
    expect(render('{{A}}{{A}}{{{A}}}', { A: '1' }).text).toBe('111');
  });
});

describe('variablesIn', () => {
  it('lists the keys a text uses, each once, in order, from both forms', () => {
    expect(variablesIn('{{{B}}} {{A}} {{ B }} {{not a key}} {{C_1}}')).toEqual(['B', 'A', 'C_1']);
  });

  it('is empty for a text without variables', () => {
    expect(variablesIn('<p>Hello</p> {x}')).toEqual([]);
  });
});

describe('escapeHtml', () => {
  it('escapes the five HTML special characters and nothing else', () => {
    expect(escapeHtml(`<a href="x">Tom & Jerry's</a> é`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt; é',
    );
  });
});

describe('renderHeader (subjects)', () => {
  const injections = [
    'Ann\r\nBcc: victim@evil.example',
    'Ann\nX-Evil: 1',
    'Ann\rX',
    'Ann\u0000X',
    'Ann\u2028X',
    'Ann\u2029X',
    'Ann\u0085X',
    'Ann\u000bX',
  ];

  it.each(injections)('cannot start a header line with a value: %j', (value) => {
    const out = renderHeader(
      'Hello {{FIRST_NAME}} / {{{FIRST_NAME}}}',
      { FIRST_NAME: value },
      { missing: 'empty' },
    ).text;
    // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
    expect(out).not.toMatch(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/);
    expect(out.startsWith('Hello Ann ')).toBe(true);
  });

  it('inserts values as they are otherwise (no HTML escaping) and keeps the template text and tabs', () => {
    expect(renderHeader('Re:\t{{A}} & {{{B}}}', { A: '<b>&', B: 7 }).text).toBe('Re:\t<b>& & 7');
  });

  it('turns a run of line breaks into one space', () => {
    expect(headerSafeValue('a\r\n\r\nb\u2028\u2029c')).toBe('a b c');
  });

  it('reports missing keys as render does', () => {
    expect(renderHeader('{{A}}', {})).toEqual({ text: '{{A}}', missing: ['A'], malformed: [] });
  });
});
