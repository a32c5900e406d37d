/**
 * The pending entries of waiting emails (keys.pendingEmailFrom): an accepted email still
 * `queued` or `scheduled` is listed under its From domain, so deleting the domain cancels it
 * without a Scan. A leaf module: DELETE /domains bundles it without the sending code.
 */
import * as keys from '../platform/db/keys';
import {
  batchGet,
  del,
  isConditionFailed,
  put,
  queryPage,
  transact,
  update,
  type WriteAction,
} from '../platform/db/table';
import { eventWrite } from '../events/events';
import type { EmailItem } from './item';
import { addressDomain, toSummary } from './record';

/** Lists a waiting email under its From domain (keys.pendingEmailFrom); put again whenever it waits again. */
export function pendingEmailWrite(projectId: string, email: Pick<EmailItem, 'id' | 'from'>): WriteAction {
  return put({
    ...keys.pendingEmailFrom(projectId, addressDomain(email.from), email.id),
    type: 'pending_email',
    project_id: projectId,
    email_id: email.id,
  });
}

export function pendingEmailDelete(projectId: string, email: Pick<EmailItem, 'id' | 'from'>): WriteAction {
  return del(keys.pendingEmailFrom(projectId, addressDomain(email.from), email.id));
}

/** The emails of one page of a domain's pending entries canceled at a time (3 writes each, one transaction each). */
const CANCEL_PAGE = 25;

/**
 * Deleting a domain cancels the project's emails still waiting to go out from it (`canceled`,
 * with `cancel_reason`, and `email.canceled`): a page of its pending entries at a time, each
 * email in a transaction conditional on it still waiting, until `deadline` (epoch ms). An entry
 * whose email moved on meanwhile is dropped. What is left at the deadline is refused by the
 * sender's own check of the domain when it comes due. Returns how many it canceled.
 */
export async function cancelPendingEmailsFrom(
  projectId: string,
  domainName: string,
  deadline: number,
): Promise<number> {
  const reason = `the domain ${domainName} was deleted before the email was sent`;
  let canceled = 0;
  // machine time: `deadline` is the request's budget of work
  while (Date.now() < deadline) {
    // every entry read is deleted below, so the first page is always the next one
    const { items: entries } = await queryPage(keys.pendingEmailsFrom(projectId, domainName), { limit: CANCEL_PAGE });
    if (!entries.length) break;
    const emails = new Map(
      (await batchGet(entries.map((entry) => keys.email(projectId, entry.email_id)))).map((email) => [
        email.id as string,
        email as EmailItem,
      ]),
    );
    await Promise.all(
      entries.map(async (entry) => {
        const marker = del(keys.pendingEmailFrom(projectId, domainName, entry.email_id));
        const email = emails.get(entry.email_id);
        if (!email) return transact([marker]);
        try {
          await transact([
            update(
              keys.email(projectId, email.id),
              {
                set: { last_event: 'canceled', cancel_reason: reason },
                remove: ['GSI1PK', 'GSI1SK'],
                condition: {
                  expression: 'last_event IN (:queued, :scheduled)',
                  values: { ':queued': 'queued', ':scheduled': 'scheduled' },
                },
              },
              { tag: 'no longer waiting' },
            ),
            eventWrite({ projectId, livemode: email.livemode }, 'email.canceled', {
              ...toSummary(email),
              last_event: 'canceled',
              cancel_reason: reason,
            }),
            marker,
          ]);
          canceled += 1;
        } catch (error) {
          if (!isConditionFailed(error, 'no longer waiting')) throw error;
          await transact([marker]); // the sender took it, or it was canceled: nothing to cancel
        }
      }),
    );
  }
  return canceled;
}
