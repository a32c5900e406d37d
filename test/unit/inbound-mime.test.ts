/** Reading received messages (shared/receiving/mime.ts): the MIME shapes mail arrives in, and mail that is broken. */
import { messageFromSesHeaders, parseMessage } from '../../shared/receiving/mime';

const crlf = (lines: string[]) => Buffer.from(lines.join('\r\n'), 'latin1');

describe('parseMessage', () => {
  it('reads multipart/alternative into text and html, with addresses, subject and headers', async () => {
    const parsed = await parseMessage(
      crlf([
        'Received: from a.example by mx; Mon, 1 Jan 2026 00:00:00 +0000',
        'Received: from b.example by a.example; Mon, 1 Jan 2026 00:00:00 +0000',
        'From: "Doe, Jane" <jane@example.org>',
        'To: Support <support@shop.example>, other@shop.example',
        'Cc: team: a@x.example, b@x.example;',
        'Reply-To: replies@example.org',
        'Subject: Order 42',
        'Message-ID: <abc.123@example.org>',
        'MIME-Version: 1.0',
        'Content-Type: multipart/alternative; boundary="b1"',
        '',
        '--b1',
        'Content-Type: text/plain; charset=utf-8',
        '',
        'Plain body',
        '--b1',
        'Content-Type: text/html; charset=utf-8',
        '',
        '<p>HTML body</p>',
        '--b1--',
        '',
      ]),
    );
    expect(parsed).toMatchObject({
      from: '"Doe, Jane" <jane@example.org>',
      to: ['Support <support@shop.example>', 'other@shop.example'],
      cc: ['a@x.example', 'b@x.example'],
      bcc: [],
      reply_to: ['replies@example.org'],
      subject: 'Order 42',
      message_id: '<abc.123@example.org>',
      attachments: [],
    });
    expect(parsed.text?.trim()).toBe('Plain body');
    expect(parsed.html?.trim()).toBe('<p>HTML body</p>');
    expect(parsed.headers.subject).toBe('Order 42');
    expect(parsed.headers.received.split('\n')).toHaveLength(2);
  });

  it('keeps attachments and inline parts with their metadata and exact bytes', async () => {
    const pdf = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0x10, 0x80]);
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const parsed = await parseMessage(
      crlf([
        'From: a@example.org',
        'To: b@shop.example',
        'Subject: files',
        'Content-Type: multipart/mixed; boundary="m"',
        '',
        '--m',
        'Content-Type: multipart/related; boundary="r"',
        '',
        '--r',
        'Content-Type: text/html; charset=utf-8',
        '',
        '<img src="cid:logo@x">',
        '--r',
        'Content-Type: image/png',
        'Content-ID: <logo@x>',
        'Content-Disposition: inline; filename="logo.png"',
        'Content-Transfer-Encoding: base64',
        '',
        png.toString('base64'),
        '--r--',
        '--m',
        'Content-Type: application/pdf; name="=?UTF-8?Q?Rechnung_=C3=BC.pdf?="',
        "Content-Disposition: attachment; filename*=UTF-8''Rechnung%20%C3%BC.pdf",
        'Content-Transfer-Encoding: base64',
        '',
        pdf.toString('base64'),
        '--m--',
        '',
      ]),
    );
    expect(parsed.html).toContain('cid:logo@x');
    expect(parsed.attachments).toHaveLength(2);
    const [logo, invoice] = parsed.attachments;
    expect(logo).toMatchObject({
      filename: 'logo.png',
      content_type: 'image/png',
      content_disposition: 'inline',
      content_id: 'logo@x',
    });
    expect(Buffer.from(logo.content)).toEqual(png);
    expect(invoice).toMatchObject({
      filename: 'Rechnung ü.pdf',
      content_type: 'application/pdf',
      content_disposition: 'attachment',
      content_id: null,
    });
    expect(Buffer.from(invoice.content)).toEqual(pdf);
  });

  it('decodes bodies and headers in charsets other than UTF-8', async () => {
    const koi8 = Buffer.from([0xf0, 0xd2, 0xc9, 0xd7, 0xc5, 0xd4]); // "Привет" in KOI8-R
    const message = Buffer.concat([
      crlf([
        'From: =?ISO-8859-1?Q?J=F6rg_M=FCller?= <joerg@example.de>',
        'To: b@shop.example',
        'Subject: =?Shift_JIS?B?g2WDWINn?=', // "テスト"
        'Content-Type: multipart/alternative; boundary="c"',
        '',
        '--c',
        'Content-Type: text/plain; charset=koi8-r',
        'Content-Transfer-Encoding: 8bit',
        '',
        '',
      ]),
      koi8,
      crlf([
        '',
        '--c',
        'Content-Type: text/html; charset=windows-1252',
        'Content-Transfer-Encoding: quoted-printable',
        '',
        '<p>Gr=FC=DFe =A7 5</p>',
        '--c--',
        '',
      ]),
    ]);
    const parsed = await parseMessage(message);
    expect(parsed.from).toBe('Jörg Müller <joerg@example.de>');
    expect(parsed.subject).toBe('テスト');
    expect(parsed.text?.trim()).toBe('Привет');
    expect(parsed.html?.trim()).toBe('<p>Grüße § 5</p>');
  });

  it('reads what it can of a malformed message instead of failing', async () => {
    // no header block, a boundary that never comes, broken base64, binary noise
    const broken = Buffer.concat([
      crlf([
        'Subject: half a message',
        'Content-Type: multipart/mixed; boundary="never"',
        'Content-Transfer-Encoding: base64',
        '',
        '%%% not base64 %%%',
      ]),
      Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x0a]),
    ]);
    const parsed = await parseMessage(broken, 'bounce@sender.example');
    expect(parsed.subject).toBe('half a message');
    expect(parsed.from).toBe('bounce@sender.example'); // no From header: the envelope sender
    expect(parsed.to).toEqual([]);
    expect(parsed.message_id).toBeNull();

    const noise = await parseMessage(Buffer.from([0xff, 0x00, 0x13, 0x37, 0x0d, 0x0a, 0x0d, 0x0a, 0x41]));
    expect(noise).toMatchObject({ from: '', subject: '', attachments: [] });

    const empty = await parseMessage(new Uint8Array(0));
    expect(empty).toMatchObject({ from: '', subject: '', text: null, html: null, attachments: [] });
  });
});

describe('messageFromSesHeaders', () => {
  it('takes addresses, subject and headers from the SES notification when the message itself is not read', () => {
    expect(
      messageFromSesHeaders(
        {
          commonHeaders: {
            from: ['Big Sender <big@example.org>'],
            to: ['x@shop.example'],
            subject: 'Huge',
            messageId: '<m@example.org>',
          },
          headers: [
            { name: 'Subject', value: 'Huge' },
            { name: 'X-Thing', value: '1' },
          ],
        },
        'envelope@example.org',
      ),
    ).toEqual({
      from: 'Big Sender <big@example.org>',
      to: ['x@shop.example'],
      cc: [],
      bcc: [],
      reply_to: [],
      subject: 'Huge',
      message_id: '<m@example.org>',
      headers: { subject: 'Huge', 'x-thing': '1' },
      text: null,
      html: null,
      attachments: [],
    });
  });
});
