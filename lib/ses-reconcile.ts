/**
 * Re-points the service's SES configuration sets at the stack's SES events topic
 * (`npm run ses-reconcile`, bin/ses-reconcile.ts). The domain routes make one configuration set per
 * domain at run time (`es-<domain id>`, shared/domains/identity.ts), whose event destination names the
 * topic's ARN as it was then. If the topic is ever replaced under another ARN, those sets keep
 * publishing to the dead one: bounces and complaints stop reaching the suppression writer. This
 * lists every set named `es-*` and, for each:
 *
 * - its destination `email-service-events` publishes to `topicArn` and is enabled: left alone;
 * - it publishes elsewhere, or is disabled: updated to `topicArn`, enabled, its event types kept
 *   (they carry the domain's open and click tracking);
 * - it has none: made, with the event types every domain publishes (no opens or clicks: a PATCH of
 *   the domain's tracking adds them back).
 *
 * Idempotent: a second run finds everything in place and changes nothing. Sets not named `es-*`
 * (another application's in the same account) are never read. The SES tenants' associations name the
 * configuration set, not the topic, so a replaced topic leaves them as they are: nothing to re-point.
 */
import {
  CreateConfigurationSetEventDestinationCommand,
  type EventType,
  GetConfigurationSetEventDestinationsCommand,
  ListConfigurationSetsCommand,
  type SESv2Client,
  UpdateConfigurationSetEventDestinationCommand,
} from '@aws-sdk/client-sesv2';
import { EVENT_DESTINATION_NAME, matchingEventTypes } from '../shared/domains/identity';
import { CONFIGURATION_SET_PREFIX } from '../shared/domains/model';

export type ReconcileOutcome = 'unchanged' | 'repointed' | 'created';

export interface ReconcileResult {
  configurationSet: string;
  outcome: ReconcileOutcome;
  /** the topic it published to before, when it was re-pointed */
  previousTopicArn?: string;
}

/** Every configuration set of the service (`es-*`), a page of up to 1,000 at a time. */
export async function serviceConfigurationSets(ses: SESv2Client): Promise<string[]> {
  const names: string[] = [];
  let NextToken: string | undefined;
  do {
    const page = await ses.send(new ListConfigurationSetsCommand({ NextToken, PageSize: 1000 }));
    names.push(...(page.ConfigurationSets ?? []).filter((name) => name.startsWith(CONFIGURATION_SET_PREFIX)));
    NextToken = page.NextToken;
  } while (NextToken);
  return names;
}

/** Points one configuration set's event destination at `topicArn` (see the module's comment for the three cases). */
export async function reconcileConfigurationSet(
  ses: SESv2Client,
  ConfigurationSetName: string,
  topicArn: string,
): Promise<ReconcileResult> {
  const { EventDestinations = [] } = await ses.send(
    new GetConfigurationSetEventDestinationsCommand({ ConfigurationSetName }),
  );
  const destination = EventDestinations.find((d) => d.Name === EVENT_DESTINATION_NAME);
  if (!destination) {
    const MatchingEventTypes = matchingEventTypes({ open_tracking: false, click_tracking: false });
    await ses.send(
      new CreateConfigurationSetEventDestinationCommand({
        ConfigurationSetName,
        EventDestinationName: EVENT_DESTINATION_NAME,
        EventDestination: { Enabled: true, MatchingEventTypes, SnsDestination: { TopicArn: topicArn } },
      }),
    );
    return { configurationSet: ConfigurationSetName, outcome: 'created' };
  }
  const previousTopicArn = destination.SnsDestination?.TopicArn;
  if (previousTopicArn === topicArn && destination.Enabled)
    return { configurationSet: ConfigurationSetName, outcome: 'unchanged' };
  await ses.send(
    new UpdateConfigurationSetEventDestinationCommand({
      ConfigurationSetName,
      EventDestinationName: EVENT_DESTINATION_NAME,
      EventDestination: {
        Enabled: true,
        MatchingEventTypes: destination.MatchingEventTypes as EventType[] | undefined,
        SnsDestination: { TopicArn: topicArn },
      },
    }),
  );
  return { configurationSet: ConfigurationSetName, outcome: 'repointed', previousTopicArn };
}

/**
 * Every `es-*` configuration set pointed at `topicArn`, one after another (SES's configuration-set
 * APIs allow a few requests a second; the SDK retries a throttled call): the result of each.
 */
export async function reconcileSesEventDestinations(ses: SESv2Client, topicArn: string): Promise<ReconcileResult[]> {
  if (!/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[\w-]{1,256}$/.test(topicArn))
    throw new Error(`not an SNS topic ARN: ${topicArn}`);
  const results: ReconcileResult[] = [];
  for (const name of await serviceConfigurationSets(ses))
    results.push(await reconcileConfigurationSet(ses, name, topicArn));
  return results;
}
