/**
 * `npm run ses-reconcile` (lib/ses-reconcile.ts) against the runtime's SES front: configuration sets
 * of the service (`es-*`) left publishing to a topic that is gone are pointed at the stack's again,
 * their event types kept; one without a destination gets one; another application's sets are not
 * touched; a second run changes nothing.
 */
import {
  CreateConfigurationSetCommand,
  CreateConfigurationSetEventDestinationCommand,
  DeleteConfigurationSetCommand,
  GetConfigurationSetEventDestinationsCommand,
  SESv2Client,
} from '@aws-sdk/client-sesv2';
import { LOCAL_SES_EVENTS_TOPIC_ARN } from '../../local/aws/ses-events';
import { reconcileSesEventDestinations } from '../../lib/ses-reconcile';
import { EVENT_DESTINATION_NAME, matchingEventTypes } from '../../shared/domains/identity';
import { newId } from '../../shared/platform/ids';
import { runtimeCredentials } from '../support/stand-ins';
import { useRuntimeTable } from '../support/table';

const runtime = useRuntimeTable();
let ses: SESv2Client;
beforeAll(() => {
  ses = new SESv2Client({ endpoint: runtime.sesEndpoint, region: 'ap-southeast-2', credentials: runtimeCredentials() });
});
afterAll(() => ses.destroy());

const DEAD_TOPIC = 'arn:aws:sns:ap-southeast-2:000000000000:EmailService-SesEventsTopicOLD';
const destinationOf = async (name: string) =>
  (
    await ses.send(new GetConfigurationSetEventDestinationsCommand({ ConfigurationSetName: name }))
  ).EventDestinations?.find((d) => d.Name === EVENT_DESTINATION_NAME);

it("points every es-* configuration set's events at the stack's topic, keeps their event types, leaves others alone, and is idempotent", async () => {
  const suffix = newId();
  const stale = `es-${suffix}-stale`; // a domain made before the topic was replaced, tracking opens
  const bare = `es-${suffix}-bare`; // a set whose destination was never made
  const current = `es-${suffix}-current`; // a domain made after: already right
  const foreign = `other-app-${suffix}`; // not the service's
  const tracked = matchingEventTypes({ open_tracking: true, click_tracking: false });
  for (const name of [stale, bare, current, foreign])
    await ses.send(new CreateConfigurationSetCommand({ ConfigurationSetName: name }));
  const destination = (ConfigurationSetName: string, TopicArn: string) =>
    ses.send(
      new CreateConfigurationSetEventDestinationCommand({
        ConfigurationSetName,
        EventDestinationName: EVENT_DESTINATION_NAME,
        EventDestination: { Enabled: true, MatchingEventTypes: tracked, SnsDestination: { TopicArn } },
      }),
    );
  await destination(stale, DEAD_TOPIC);
  await destination(current, LOCAL_SES_EVENTS_TOPIC_ARN);
  await destination(foreign, DEAD_TOPIC);
  try {
    const mine = (results: Awaited<ReturnType<typeof reconcileSesEventDestinations>>) =>
      results.filter((r) => r.configurationSet.includes(suffix));
    expect(mine(await reconcileSesEventDestinations(ses, LOCAL_SES_EVENTS_TOPIC_ARN))).toEqual(
      expect.arrayContaining([
        { configurationSet: stale, outcome: 'repointed', previousTopicArn: DEAD_TOPIC },
        { configurationSet: bare, outcome: 'created' },
        { configurationSet: current, outcome: 'unchanged' },
      ]),
    );
    expect(await destinationOf(stale)).toMatchObject({
      Enabled: true,
      MatchingEventTypes: tracked,
      SnsDestination: { TopicArn: LOCAL_SES_EVENTS_TOPIC_ARN },
    });
    expect(await destinationOf(bare)).toMatchObject({
      Enabled: true,
      MatchingEventTypes: matchingEventTypes({ open_tracking: false, click_tracking: false }),
      SnsDestination: { TopicArn: LOCAL_SES_EVENTS_TOPIC_ARN },
    });
    expect(await destinationOf(foreign)).toMatchObject({ SnsDestination: { TopicArn: DEAD_TOPIC } });

    const again = mine(await reconcileSesEventDestinations(ses, LOCAL_SES_EVENTS_TOPIC_ARN));
    expect(again.map((r) => r.outcome)).toEqual(['unchanged', 'unchanged', 'unchanged']);
  } finally {
    for (const name of [stale, bare, current, foreign])
      await ses.send(new DeleteConfigurationSetCommand({ ConfigurationSetName: name })).catch(() => undefined);
  }
});

it('refuses a topic that is not an SNS ARN', async () => {
  await expect(reconcileSesEventDestinations(ses, 'EmailService-ses-events')).rejects.toThrow(/not an SNS topic ARN/);
});
