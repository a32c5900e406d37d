/**
 * Opens and clicks from the local SES (local/aws/ses-events.ts): mail to `open@` and
 * `click@simulator.amazonses.com` comes back, after its Delivery, as SES `Open` and `Click`
 * events (one Click per distinct link of the html), only when the domain tracks them (its
 * configuration set's event destination matches OPEN / CLICK). They reach the email-status
 * worker as any SES event does: `last_event` `opened` / `clicked`, `email.opened` / `email.clicked`.
 * Through the pipeline on a runtime of its own (test/support/own-runtime.ts): each test lets it
 * settle (`drain`: the local SES owes no event and every worker is done) before it checks what
 * happened, and what did not.
 */
import { simulatedEvents, trackedLinks } from '../../local/aws/ses-events';
import { verifiedDomain } from '../support/domains';
import { api } from '../support/http';
import { useOwnRuntime } from '../support/own-runtime';
import { createOtherProject, projectEvents, useRuntimeTable } from '../support/table';

const HTML =
  '<p>News</p><a href="https://example.com/a?x=1&amp;y=2">A</a> <a class="cta" href=\'https://example.com/b\' ses:tags="campaign:nov;kind:cta">B</a>' +
  '<a href="https://example.com/a?x=1&amp;y=2">A again</a><a href="mailto:help@example.com">mail us</a><a ses:no-track href="https://example.com/c">C</a>';
const LINKS = ['https://example.com/a?x=1&y=2', 'https://example.com/b'];

describe('the simulated events (SES event publishing JSON)', () => {
  const request = (to: string, body: Record<string, unknown> = { Html: { Data: HTML } }) => ({
    FromEmailAddress: 'n@mail.example.com',
    Destination: { ToAddresses: [to] },
    ConfigurationSetName: 'es-set',
    Content: { Simple: { Subject: { Data: 'Hi' }, Body: body } },
  });
  const both = { open: true, click: true };
  const types = (events: { eventType: string }[]) => events.map((e) => e.eventType);

  it('takes each http(s) link of the html once, in order, with its ses:tags; never mailto: or ses:no-track', () => {
    expect(trackedLinks(HTML)).toEqual([
      { link: LINKS[0], linkTags: {} },
      { link: LINKS[1], linkTags: { campaign: ['nov'], kind: ['cta'] } },
    ]);
  });

  it('click@ (any +label): Delivery, an Open, then a Click per link, in SES shapes', () => {
    const now = new Date('2026-11-25T10:00:00.000Z');
    const events = simulatedEvents(request('Reader <click+x1@simulator.amazonses.com>'), 'm-1', now, both);
    expect(types(events)).toEqual(['Send', 'Delivery', 'Open', 'Click', 'Click']);
    expect(events[2]).toMatchObject({
      mail: { messageId: 'm-1' },
      open: { ipAddress: '192.0.2.1', timestamp: '2026-11-25T10:00:01.000Z', userAgent: expect.any(String) },
    });
    expect(events.slice(3).map((e) => e.click)).toEqual([
      {
        ipAddress: '192.0.2.1',
        link: LINKS[0],
        linkTags: {},
        timestamp: '2026-11-25T10:00:01.500Z',
        userAgent: expect.any(String),
      },
      {
        ipAddress: '192.0.2.1',
        link: LINKS[1],
        linkTags: { campaign: ['nov'], kind: ['cta'] },
        timestamp: '2026-11-25T10:00:01.600Z',
        userAgent: expect.any(String),
      },
    ]);
  });

  it('publishes only what the configuration set tracks, and nothing for text-only mail', () => {
    expect(
      types(simulatedEvents(request('click@simulator.amazonses.com'), 'm', new Date(), { open: false, click: true })),
    ).toEqual(['Send', 'Delivery', 'Click', 'Click']);
    expect(
      types(simulatedEvents(request('click@simulator.amazonses.com'), 'm', new Date(), { open: false, click: false })),
    ).toEqual(['Send', 'Delivery']);
    expect(types(simulatedEvents(request('click@simulator.amazonses.com'), 'm'))).toEqual(['Send', 'Delivery']); // no tracking unless told
    expect(types(simulatedEvents(request('open+a@simulator.amazonses.com'), 'm', new Date(), both))).toEqual([
      'Send',
      'Delivery',
      'Open',
    ]);
    expect(
      types(
        simulatedEvents(
          request('click@simulator.amazonses.com', { Text: { Data: 'https://example.com/a' } }),
          'm',
          new Date(),
          both,
        ),
      ),
    ).toEqual(['Send', 'Delivery']);
    expect(types(simulatedEvents(request('success@simulator.amazonses.com'), 'm', new Date(), both))).toEqual([
      'Send',
      'Delivery',
    ]);
  });
});

describe('through the pipeline', () => {
  // a runtime of its own: `drain` then waits for this file's sends alone, and what has not happened once it settled never will
  const runtime = useOwnRuntime({}, { forFile: true });
  let project: { projectId: string; key: string };
  let tracksBoth: string;
  let tracksClicks: string;
  let tracksNothing: string;

  beforeAll(async () => {
    useRuntimeTable(); // the table of this runtime (TEST_DATA_DIR names it now)
    project = await createOtherProject();
    [tracksBoth, tracksClicks, tracksNothing] = await Promise.all([
      verifiedDomain(project.key, 'track', { open_tracking: true, click_tracking: true }),
      verifiedDomain(project.key, 'clicks', { click_tracking: true }),
      verifiedDomain(project.key, 'untracked'),
    ]);
  }, 120_000);

  const send = async (domain: string, to: string) => {
    const res = await api.post(
      '/emails',
      { from: `News <news@${domain}>`, to, subject: `to ${to}`, html: HTML },
      { key: project.key },
    );
    expect(res.status).toBe(200);
    return res.body.id as string;
  };
  /** The email's status once the pipeline has settled: the local SES published every event it owed, and the workers handled them. */
  const settled = async (id: string) => {
    await runtime.drain();
    return (await api.get(`/emails/${id}`, { key: project.key })).body.last_event as string;
  };
  const eventsOf = async (emailId: string) =>
    (await projectEvents(project.projectId)).map((i) => i.event).filter((e) => e.data.object.id === emailId);
  const typesOf = async (emailId: string) => (await eventsOf(emailId)).map((e) => e.type as string);

  it('click@ from a domain tracking clicks ends clicked, with an email.clicked per link', async () => {
    const id = await send(tracksBoth, 'click@simulator.amazonses.com');
    expect(await settled(id)).toBe('clicked');
    const clicks = (await eventsOf(id)).filter((e) => e.type === 'email.clicked');
    expect(clicks.map((e) => e.data.object.click.link).sort()).toEqual([...LINKS].sort());
    expect(clicks[0].data.object).toMatchObject({
      id,
      click: { ip_address: '192.0.2.1', user_agent: expect.any(String), timestamp: expect.any(String) },
    });
    expect(await typesOf(id)).toEqual(
      expect.arrayContaining(['email.sent', 'email.delivered', 'email.opened', 'email.clicked']),
    );
  }, 90_000);

  it('open@ ends opened, with an email.opened and no click', async () => {
    const id = await send(tracksBoth, 'open+reader@simulator.amazonses.com');
    expect(await settled(id)).toBe('opened');
    const events = await eventsOf(id);
    expect(events.find((e) => e.type === 'email.opened').data.object).toMatchObject({
      id,
      last_event: 'opened',
      open: { ipAddress: '192.0.2.1' },
    });
    expect(events.map((e) => e.type)).not.toContain('email.clicked');
  }, 90_000);

  it('follows the domain: clicks without opens where only clicks are tracked, neither where nothing is', async () => {
    const clicksOnly = await send(tracksClicks, 'click@simulator.amazonses.com');
    const untracked = await send(tracksNothing, 'click@simulator.amazonses.com');
    // settled: an Open or Click published with the Delivery has been handled by now
    expect(await settled(clicksOnly)).toBe('clicked');
    expect((await api.get(`/emails/${untracked}`, { key: project.key })).body.last_event).toBe('delivered');
    const clicksOnlyTypes = await typesOf(clicksOnly);
    expect(clicksOnlyTypes.filter((type) => type === 'email.clicked')).toHaveLength(LINKS.length);
    expect(clicksOnlyTypes).not.toContain('email.opened');
    const untrackedTypes = await typesOf(untracked);
    expect(untrackedTypes).toContain('email.delivered');
    expect(untrackedTypes).not.toContain('email.opened');
    expect(untrackedTypes).not.toContain('email.clicked');
  }, 90_000);
});
