/**
 * Every DynamoDB key of the service is built here, and nowhere else.
 *
 * One table (see lib/table-definition.ts). Every key of a project's resources starts with the
 * project, so no Query can cross tenants; the few global lookups are items of their own, read
 * only on their exact key. Ids are UUIDv7, so a Query on a prefix returns items in creation order.
 * The collections written for every email are sharded (COLLECTION_SHARDS partitions, `<shard>` below,
 * from the item's id): one project at 500 emails a second stays far under a partition's 1,000
 * write units a second, and readers merge the shards by sort key (table.ts `queryPage`).
 * GSI1 projects keys only: its readers take the items from the table (table.ts `queryGsi1Page(s)`).
 *
 * The access patterns, one entry per kind of item: its keys (PK, SK; GSI1PK, GSI1SK when it is on
 * the index), then who reads and writes it and how.
 *
 * - project: PK `PROJECT#<pid>`, SK `PROJECT`
 *     create (CLI, local bootstrap), get; its settings (rate limit, quotas: `npm run project`), read by every
 *     authenticated request at most once a minute per function (shared/project/settings.ts)
 * - metrics: PK `METRICS#<pid>#<shard>`, SK `DAY#<yyyy-mm-dd>`
 *     GET /emails/metrics' counts of live mail per UTC day (sent, delivered, bounced, complained, opened, clicked,
 *     failed, suppressed...), ADD in the transaction that records each (the sender's, the email-status worker's); read
 *     with a range Query per shard (shared/emails/metrics.ts); TTL 400 days
 * - broadcast link: PK `PROJECT#<pid>#BROADCAST#<bid>#LINKS#<shard>`, SK `LINK#<sha256(url) 16 hex>`
 *     a broadcast's clicks per link (`url`, `clicks`, `unique_clicks`), ADD by the email-status worker in the Click
 *     event's transaction, sharded by email id; GET /broadcasts/{id}/clicked-links Queries the shards and merges by
 *     link
 * - contact count: PK `PROJECT#<pid>`, SK `CONTACT_COUNT#<0-7>`
 *     the project's number of contacts (`n`), spread over 8 counters: a create adds 1 to one picked at random, a delete
 *     takes 1 from one, in their transactions (shared/project/contact-count.ts); GET /usage reads all 8 (BatchGet);
 *     `npm run project -- recount` sets them from a COUNT Query
 * - running import: PK `PROJECT#<pid>`, SK `CONTACT_IMPORT_RUNNING`
 *     the project's one queued or in-progress import (`import_id`): put with attribute_not_exists in the transaction
 *     that creates the import (409 `import_in_progress` when there), deleted in the one that completes or fails it; a
 *     stale one (its import not moved for 15 minutes, or queued an hour) is taken over by the next import, which fails
 *     the old (shared/audience/imports.ts)
 * - import page: PK `PROJECT#<pid>`, SK `CONTACT_IMPORT_PAGE#<iid>#<first row>`
 *     a page of a contact import written: put with attribute_not_exists in the page's transaction (a page is written
 *     once, however many workers try), with the page's counts, which a worker that finds it done takes instead
 *     (shared/audience/imports.ts); TTL 7 days
 * - reputation: PK `REPUTATION#<pid>#<shard>`, SK `HOUR#<yyyy-mm-ddThh>`
 *     the reputation guard's counts of live sends (the sender's sent transaction), permanent bounces and complaints
 *     (the email-status worker's transaction), ADD per UTC hour; read (the shards merged, the last 24 hours) after a
 *     bounce or complaint and by GET /project (shared/emails/reputation.ts); TTL 2 days
 * - rate window: PK `RATE_LIMIT#<pid>#<epoch second>`, SK `RATE_LIMIT`
 *     every authenticated request: one UpdateItem (ADD with a condition under the project's limit), beside the API-key
 *     lookup (shared/access/rate-limit.ts); a partition per second, so a project's counting never meets another
 *     second's; TTL 2 min
 * - send count: PK `SEND_COUNT#<pid>#<DAY#yyyy-mm-dd or MONTH#yyyy-mm>[#<shard 0-7>]`, SK `SEND_COUNT`
 *     emails accepted in the day / month (UTC): added to in the transaction that accepts them, on the main counter with
 *     a condition under the project's quota, or on a random shard when it has none (shared/project/quota.ts); main +
 *     shards read (one BatchGet) for the usage headers and GET /project; TTL 40 days (day) / 400 days (month)
 * - default project: PK `DEPLOYMENT`, SK `DEFAULT_PROJECT`
 *     local runtime: which project `npm start` provisions
 * - api key: PK `PROJECT#<pid>`, SK `API_KEY#<kid>`
 *     POST/GET/DELETE /api-keys (Query on prefix to list)
 * - api key hash: PK `API_KEY_HASH#<sha256>`, SK `API_KEY_HASH`
 *     every authenticated request (GetItem)
 * - segment: PK `PROJECT#<pid>`, SK `SEGMENT#<sid>`
 *     POST/GET/PATCH/DELETE /segments (Query on prefix to list); deleting one also removes its members (below)
 * - event: PK `PROJECT#<pid>#EVENTS#<shard>`, SK `EVENT#<eid>`
 *     outbox: written in the change's transaction; GET /events (the 16 shards merged, newest first); TTL 30 days. Ids
 *     and metadata, never a body
 * - email: PK `PROJECT#<pid>#EMAILS#<shard>`, SK `EMAIL#<eid>`; GSI1PK `EMAIL_DUE#<0-7> (while waiting for the sender,
 *   and while `sending`: until the claim's lease ends)`, GSI1SK `<due ISO time>#<pid>#<eid>`
 *     the envelope and status only (the content is an S3 object, shared/emails/content.ts); POST/GET /emails (the
 *     shards merged), retry, cancel; the due-email dispatcher (Query GSI1 <= now), which also finds a `sending` claim
 *     whose sender died; TTL EMAIL_RETENTION_DAYS. Its `share_version` (POST/DELETE /emails/{id}/share, GET
 *     /share/{token}: GetItem) is the share links' revocation: DELETE /emails/{id}/share adds one (UpdateItem).
 *     GET /emails?created_after|created_before: a range of the sort key (ids are UUIDv7: `idTimeBound`)
 * - email index entry: PK `PROJECT#<pid>#EMAILS_BY#<status|from|to|tag>#<value>#<shard>`, SK `EMAIL#<eid>`
 *     GET /emails' filters (shared/emails/list-filters.ts): one per email for its status (`last_event`), its from
 *     address, each recipient (to, cc, bcc) and each tag (`name:value`); addresses bare and lower-cased. Written by
 *     the email-list-index worker from the table's stream of email items (BatchWriteItem: a status change deletes
 *     the old status's entry and puts the new one); keys only, TTL with the email. The reader Queries one
 *     filter's shards (merged, newest first) and BatchGets the emails to check the others
 * - idempotency: PK `PROJECT#<pid>`, SK `IDEMPOTENCY#<sha256(key)>`
 *     POST /emails(/batch) with Idempotency-Key; TTL 24 h
 * - pending email: PK `PROJECT#<pid>#PENDING_FROM#<domain name>#<shard>`, SK `EMAIL#<eid>`
 *     an accepted email still waiting (queued/scheduled) listed under its From domain: put with the email (and on retry
 *     or a send put back), deleted when the sender claims it, on cancel; DELETE /domains Queries the shards in pages
 *     and cancels each (no Scan). Broadcast emails have none
 * - staged email: PK `PROJECT#<pid>`, SK `STAGED_EMAIL#<eid>`; GSI1PK `EMAIL_DUE#<0-7>`, GSI1SK `<lease
 *   end>#<pid>#<eid>`
 *     a batch too large for one transaction: its emails before the commit (GET/list never read this prefix); published
 *     (deleted, the email put) after the batch commits; the due-email dispatcher finds one the request left behind
 *     (Query GSI1) and publishes or discards it by its batch
 * - email batch: PK `PROJECT#<pid>`, SK `EMAIL_BATCH#<bid>`
 *     a staged batch's commit point: put with attribute_not_exists, `committed` by the request (with the
 *     Idempotency-Key record) or `abandoned` by the dispatcher, never both; TTL 7 days
 * - SES message: PK `SES_MESSAGE#<message id>`, SK `SES_MESSAGE`
 *     SES events -> our email (GetItem); TTL with the email
 * - SES event seen: PK `SES_EVENT#<message id>`, SK `<sha256 of the event>`
 *     email-status worker: each SES event applied once; TTL 7 days
 * - send rate: PK `SEND_RATE#<epoch second>[#<shard>]`, SK `SEND_RATE`
 *     the sender's account-wide per-second send counters (one per SHARD_RATE sends a second,
 *     shared/emails/send-rate.ts); TTL
 * - suppression: PK `PROJECT#<pid>`, SK `SUPPRESSION#<lower-cased address>`
 *     the canonical entry, one per address (attribute_not_exists claims it): the sender drops suppressed recipients
 *     (BatchGet); POST /suppressions; GET/DELETE /suppressions/{email}; POST /suppressions/batch/add and /batch/remove
 *     by `emails` (BatchGet, then the same claim or conditional delete per entry); the suppression writer
 * - suppression id: PK `PROJECT#<pid>`, SK `SUPPRESSION_ID#<sid>`
 *     the same record by id, written and deleted in the canonical entry's transaction: GET/DELETE /suppressions/{id};
 *     POST /suppressions/batch/remove by `ids` (BatchGet); GET /suppressions (Query on prefix, newest first; `source`
 *     or `origin` as a FilterExpression)
 * - domain: PK `PROJECT#<pid>`, SK `DOMAIN#<did>`; GSI1PK `DOMAIN_UNSETTLED (while not_started, pending or
 *   temporary_failure)`, GSI1SK `<did>`
 *     POST/GET/PATCH/DELETE /domains, verify (Query on prefix to list); the scheduled domain check (Query GSI1, oldest
 *     first)
 * - domain name: PK `DOMAIN_NAME#<name>`, SK `DOMAIN_NAME`
 *     deployment-wide uniqueness claim of a domain name (SES identities are account-wide) -> the domain; POST /domains
 *     claims it (or takes over an expired, never verified one) and GetItems its parent names' claims (a subdomain of
 *     another project's verified domain is refused), the sender's findSendingDomain (GetItem)
 * - test domain name: PK `PROJECT#<pid of a test twin>`, SK `DOMAIN_NAME#<name>`
 *     a test twin's claim of a domain name (shared/domains/domains.ts, `domainClaimKey`): the same item as `domain
 *     name`, scoped to the twin, so a test domain never meets a live one of any project and is wiped with the twin's
 *     data; POST/PATCH/DELETE /domains, verify, the scheduled check, the sender's findSendingDomain of a test email
 *     (GetItem)
 * - domain compliance: PK `PROJECT#<pid>`, SK `DOMAIN_COMPLIANCE#<did>` (outside the `DOMAIN#` prefix: lists never see
 *   it); GSI1PK `DOMAIN_COMPLIANCE_DUE`, GSI1SK `<next check ISO time>#<did>`
 *     the statuses of the domain's last compliance check (shared/deliverability/compliance.ts), written with the
 *     domain (POST /domains: due at once) and deleted with it: GET /domains/{id}/compliance and the scheduled check
 *     (Query GSI1 < now, oldest first, BatchGet) read it (GetItem) and move its next check; when a rule's status
 *     changed, rewrite it with `domain.compliance_changed` in one transaction (conditional on the statuses read);
 *     TTL 400 days after the last check (a domain still there is checked every few hours)
 *     check (a deleted domain's is left to it)
 * - domain claim: PK `PROJECT#<pid of the claimant>`, SK `DOMAIN_CLAIM#<did it promises>`
 *     a claim of a name another project holds (shared/domains/claims.ts); POST /domains/claim puts it, GET
 *     /domains/{id}/claim and its verify read and update it (GetItem), DELETE /domains/{id} cancels it; the domain
 *     it completes into gets that id
 * - domain claim name: PK `DOMAIN_CLAIM_NAME#<name>`, SK `DOMAIN_CLAIM_NAME`
 *     global: the name's newest claim (claimant project, promised domain id), so a newer claim supersedes the
 *     older in its create's transaction (GetItem, then an update conditional on the one read, beside the older's)
 * - domain count: PK `PROJECT#<pid>`, SK `DOMAIN_COUNT`
 *     the project's number of domains (`domain_count`): read before a create, added to in the create's transaction with
 *     a condition under MAX_DOMAINS_PER_PROJECT, taken from in the delete's (and in a takeover of the project's expired
 *     claim)
 * - webhook: PK `PROJECT#<pid>`, SK `WEBHOOK#<wid>`
 *     POST/GET/PATCH/DELETE /webhooks, rotate; the fan-out reads every webhook of an event's project (Query on prefix)
 * - webhook count: PK `PROJECT#<pid>`, SK `WEBHOOK_COUNT`
 *     the project's number of webhooks (`webhook_count`): added to in the create's transaction with a condition under
 *     MAX_WEBHOOKS_PER_PROJECT, taken from in the delete's
 * - webhook delivery: PK `PROJECT#<pid>#DELIVERIES#<shard>`, SK `WEBHOOK_DELIVERY#<wid>#<did>`; GSI1PK
 *   `WEBHOOK_EVENTS#<pid>#<shard>`, GSI1SK `<did>`
 *     the fan-out's conditional put (did derived from webhook + event); the dispatcher, GET/retry one delivery
 *     (GetItem); GET /webhooks/{id}/deliveries and Resend's GET /webhooks/{id}/events (the shards merged on the
 *     webhook's prefix, newest first); Resend's GET/replay /webhooks/{id}/events/{event id} (the did computed from
 *     webhook + event: BatchGet, no key of its own); GET /webhook-events (the GSI1 shards merged, newest first); TTL
 *     with its event
 * - webhook attempt: PK `PROJECT#<pid>#ATTEMPTS#<shard of did>`, SK `WEBHOOK_ATTEMPT#<did>#<aid>`
 *     read only: the attempts the dispatcher recorded as items of their own before they were kept on the delivery
 *     (its `attempts` list, appended by the write that counts each, since 2026-11-27); Resend's
 *     GET /webhooks/{id}/events/{event id}/attempts reads them (Query on the delivery's prefix) beside the delivery's
 *     own when its `attempt_count` is more than its list holds; TTL with its delivery
 * - contact: PK `PROJECT#<pid>`, SK `CONTACT#<cid>`
 *     POST/GET/PATCH/DELETE /contacts (Query on prefix to list); holds `segment_ids` (list) and `topics` (map topic id
 *     -> opt_in/opt_out); the broadcast fan-out (BatchGet)
 * - contact email: PK `PROJECT#<pid>`, SK `CONTACT_EMAIL#<lower-cased address>`
 *     one contact per address per project (attribute_not_exists in the create's transaction) -> `contact_id`:
 *     GET/PATCH/DELETE /contacts/{email}
 * - segment member: PK `PROJECT#<pid>#SEGMENT#<sid>`, SK `CONTACT#<cid>`
 *     a contact in a segment, written in the same transaction as the contact's `segment_ids`: GET /contacts?segment_id=
 *     and the broadcast fan-out (Query the partition, pages in contact order); segment deletion removes them (the
 *     request, then the collection-cleanup worker: Query the partition)
 * - contact import: PK `PROJECT#<pid>`, SK `CONTACT_IMPORT#<iid>`
 *     POST /contacts/imports (put with the file's S3 key, ConditionChecks of its segments and topics), GET
 *     /contacts/imports (Query on prefix, newest first) and /{id}; the contact-imports worker's cursor and counts,
 *     updated in each page's transaction (shared/audience/imports.ts)
 * - topic: PK `PROJECT#<pid>`, SK `TOPIC#<tid>`
 *     POST/GET/PATCH/DELETE /topics (Query on prefix to list); a contact's effective subscription falls back to its
 *     `default_subscription`
 * - contact properties: PK `PROJECT#<pid>`, SK `CONTACT_PROPERTIES`
 *     the project's property schema, ONE item (a map key -> {id, type, fallback_value, created_at}; at most
 *     MAX_PROPERTIES): POST/GET/PATCH/DELETE /contact-properties (GetItem, then a Put conditional on its `version`: key
 *     uniqueness and the limit in one write); contact create/PATCH with `properties` (GetItem beside the contact read);
 *     each broadcast fan-out page (GetItem)
 * - template: PK `PROJECT#<pid>`, SK `TEMPLATE#<tid>`
 *     POST/GET/PATCH/DELETE /templates, publish, duplicate (Query on prefix to list); holds the draft and the
 *     `published` version; POST /emails with `template` (GetItem)
 * - template alias: PK `PROJECT#<pid>`, SK `TEMPLATE_ALIAS#<alias>`
 *     alias uniqueness (attribute_not_exists in the template's transaction) -> `template_id`: GET/PATCH/DELETE
 *     /templates/{alias}
 * - custom event: PK `PROJECT#<pid>`, SK `CUSTOM_EVENT#<name>`
 *     a custom event's definition (its schema), keyed by name because POST /events/send names it: one GetItem per send;
 *     POST /events puts it with attribute_not_exists (409 for a name taken) in one transaction with its id pointer;
 *     GET/PATCH/DELETE /events/{name} (shared/automations/custom-events.ts)
 * - custom event id: PK `PROJECT#<pid>`, SK `CUSTOM_EVENT_ID#<id>`
 *     -> `name`: GET/PATCH/DELETE /events/{id} (GetItem, then the definition); written and deleted with it
 * - automation: PK `PROJECT#<pid>`, SK `AUTOMATION#<aid>`
 *     name, status, the graph's current `version` and the trigger's event name: POST/GET/PATCH/DELETE /automations,
 *     duplicate, stop (Query on prefix to list, newest first); changed with a condition on `version` (409 on a
 *     concurrent change) in the transaction that writes the version and moves the trigger entry
 * - automation version: PK `PROJECT#<pid>`, SK `AUTOMATION_VERSION#<aid>#<version, 6 digits>`
 *     the steps and connections of one version of the graph, put once (a graph change puts the next): GET
 *     /automations/{id} (GetItem of the current one); a run keeps the version it started on
 * - automation trigger: PK `PROJECT#<pid>#AUTOMATION_TRIGGER#<event name>`, SK `AUTOMATION#<aid>`
 *     an enabled automation under its trigger's event name (`version`): put when it is enabled, moved when the trigger
 *     changes, deleted when it is disabled or deleted, each in the automation's transaction; the matcher Queries the
 *     partition of a sent event's name (a key lookup, never a scan)
 * - automation system events: PK `PROJECT#<pid>`, SK `AUTOMATION_SYSTEM_EVENTS`
 *     the system events (`resend:email.delivered`...) any automation of the project has named as a trigger or a wait
 *     (`names`, a string set; ADD in the transaction that writes a version naming one, never removed: a run of an
 *     automation changed or disabled since may still wait for one); the outbox's consumer reads it (GetItem, once per
 *     project per stream batch) before it forwards a system event to the automations, so a project that uses none pays
 *     nothing per email (shared/automations/events-forward.ts)
 * - automation run: PK `PROJECT#<pid>#AUTOMATION_RUNS#<aid>#<shard>`, SK `RUN#<rid>`
 *     one run of an automation for one contact (its version, trigger event, status, each step reached: status,
 *     output, error, times): put with attribute_not_exists by the matcher (the run id derives from automation and
 *     event, so a redelivered event starts no second run); each step's outcome an UpdateItem with a condition that the
 *     step is not done (shared/automations/runs.ts); GET /automations/{id}/runs (the shards merged, newest first),
 *     GET .../runs/{rid} (GetItem); sharded like the per-email collections, as one burst starts thousands; TTL 90 days
 * - automation waiter: PK `PROJECT#<pid>#AUTOMATION_WAIT#<contact id>#<event name>`, SK `RUN#<rid>#<step key>`
 *     a run's `wait_for_event` step waiting: put in the step's transaction; the matcher Queries the partition of a sent
 *     event's contact and name before starting runs; `resumed_by` (the event id, or `timeout`) is set once with a
 *     condition, which decides whether the event or the timeout won; deleted with the step's outcome
 * - automation metrics: PK `PROJECT#<pid>`, SK `AUTOMATION_METRICS#<aid>#<0-7>`
 *     an automation's counts (runs started/completed/failed/cancelled, emails sent, per step and status), ADD on one
 *     of 8 counters picked by run in the transaction that records each; GET /automations/{id}/metrics (BatchGet of 8)
 * - broadcast: PK `PROJECT#<pid>`, SK `BROADCAST#<bid>`; GSI1PK `BROADCAST_DUE (while scheduled, queued or sending)`,
 *   GSI1SK `<scheduled time or lease end>#<pid>#<bid>`
 *     everything but the content (under 1 KB, so the fan-out's counter and cursor updates stay cheap):
 *     POST/GET/PATCH/DELETE /broadcasts, send, cancel (Query on prefix to list); counters, cursor, pages in flight; the
 *     due-broadcast dispatcher (Query GSI1 <= now)
 * - broadcast content: PK `PROJECT#<pid>`, SK `BROADCAST_CONTENT#<bid>`
 *     its html and text (up to 350 KB), written with the broadcast while a draft (one transaction), never by the
 *     fan-out: GET /broadcasts/{id} (GetItem), the list (BatchGet of the page's), each fan-out page (GetItem)
 * - broadcast page: PK `PROJECT#<pid>#BROADCAST#<bid>#PAGES`, SK `PAGE#<after>`
 *     a fan-out page in flight: put when the page is claimed (with the cursor's move), deleted when it is done (with
 *     the in-flight count); redelivered page messages find it; the due-broadcast dispatcher re-sends the messages of
 *     those left (Query)
 * - broadcast recipient: PK `PROJECT#<pid>#BROADCAST#<bid>#<shard>`, SK `CONTACT#<cid>`
 *     the fan-out's per-recipient record (outcome, email id), put with attribute_not_exists in the same transaction as
 *     the recipient's email and the counter update, so a redelivered batch sends nobody twice; GET
 *     /broadcasts/{id}/recipients (the shards merged, newest contact first; with `email`, GetItem through the contact's
 *     address claim), each sent one's email by BatchGet; TTL 90 days
 * - unsubscribe secret: PK `DEPLOYMENT`, SK `UNSUBSCRIBE_SECRET`
 *     the HMAC key of the unsubscribe tokens (created on first use with attribute_not_exists)
 * - share link secret: PK `DEPLOYMENT`, SK `SHARE_LINK_SECRET`
 *     the HMAC key of the emails' share links (shared/emails/share.ts): made by the first POST /emails/{id}/share
 *     (attribute_not_exists), read by it and GET /share/{token} (GetItem)
 * - oauth client: PK `PROJECT#<pid>`, SK `OAUTH_CLIENT#<id>`
 *     POST/GET/DELETE /oauth/clients (Query on prefix to list)
 * - oauth client id: PK `OAUTH_CLIENT_ID#<client_id>`, SK `OAUTH_CLIENT_ID`
 *     global lookup of a public client id -> project, redirect URIs, name: GET /oauth/authorize, POST /oauth/token
 *     (BatchGet with the code or refresh token; ConditionCheck in the grant's transaction), GET /oauth/grants
 *     (BatchGet: each grant's client name)
 * - oauth code: PK `OAUTH_CODE#<sha256>`, SK `OAUTH_CODE`
 *     an authorization code (hashed), PKCE challenge, client, redirect URI, scope; put by authorize, deleted
 *     (conditionally: single use) by the token exchange; TTL 10 min
 * - oauth grant: PK `PROJECT#<pid>`, SK `OAUTH_GRANT#<gid>`
 *     GET/DELETE /oauth/grants (Query on prefix, newest first; client deletion filters on client_id); holds the hashes
 *     of its live access and refresh token; TTL with its refresh token
 * - oauth access token: PK `OAUTH_ACCESS_TOKEN#<sha256>`, SK `OAUTH_ACCESS_TOKEN`
 *     every request with an `es_oat_` bearer token (GetItem, like the api key hash); POST /oauth/revoke; TTL 1 h
 * - oauth refresh token: PK `OAUTH_REFRESH_TOKEN#<sha256>`, SK `OAUTH_REFRESH_TOKEN`
 *     POST /oauth/token refresh (marked `rotated_at` on use, kept: presenting it again revokes the grant, RFC 9700),
 *     POST /oauth/revoke; TTL 30 days
 * - received email: PK `PROJECT#<pid>`, SK `RECEIVED_EMAIL#<rid>`
 *     the inbound worker's put (with `email.received`, then `stored_at` with `email.stored`); GET /emails/receiving
 *     (Query on prefix, newest first), GET /emails/receiving/{id} and its attachments (GetItem); TTL with the raw
 *     message (INBOUND_RETENTION_DAYS)
 * - inbound message: PK `INBOUND_MESSAGE#<SES message id>`, SK `PROJECT#<pid>`
 *     idempotency of the inbound worker: one per (SES message, project), put with attribute_not_exists in the received
 *     email's transaction -> `received_email_id`, so a redelivered notification stores nothing twice; TTL with the raw
 *     message
 * - inbox: PK `PROJECT#<pid>`, SK `INBOX#<iid>`
 *     POST/GET/PATCH/DELETE /inboxes (Query on prefix to list); `unread` (threads), `drafts` counters ADDed in the
 *     transactions that change them; `agent` settings; `index_version`, `index_key`, `index_base` (the search index's, below)
 * - inbox address: PK `PROJECT#<pid>`, SK `INBOX_ADDRESS#<address, lower-cased>`
 *     the project's one inbox per address (`inbox_id`): put with attribute_not_exists in the inbox's transaction
 *     (409 when taken), read by `{id_or_address}` routes and by the inbound worker (BatchGet of a message's
 *     recipients); deleted with the inbox
 * - inbox forwarding address: PK `INBOX_FORWARD#<local part>`, SK `INBOX_FORWARD`
 *     global: an inbox's `receiving_address` on the deployment's receiving domain -> project and inbox (the inbound
 *     worker's GetItem for a recipient at that domain); put and deleted with the inbox
 * - inbox thread: PK `PROJECT#<pid>#INBOX#<iid>`, SK `THREAD#<tid>`; GSI1PK `INBOX_FOLDER#<pid>#<iid>#<folder>`,
 *   GSI1SK `<last message time>#<tid>`
 *     the conversation's summary (subject, addresses, labels, counts, read, folder); GET .../threads Queries GSI1 per
 *     folder (newest activity first, folders merged) and BatchGets the page; moved to another GSI1 partition when its
 *     folder changes; TTL with its newest message (a trashed one: 30 days after it was trashed)
 * - inbox message: PK `PROJECT#<pid>#INBOX#<iid>`, SK `MESSAGE#<tid>#<mid>`
 *     one message of a thread (mid: the received email's id, or the sent email's id): metadata; the bodies stay where
 *     they are (the received email's item or object, the sent email's content object). Query on `MESSAGE#<tid>#`:
 *     the conversation, oldest first; TTL with what it is made of
 * - inbox message id: PK `PROJECT#<pid>#INBOX#<iid>`, SK `MESSAGE_ID#<sha256(normalized Message-ID) 32 hex>`
 *     threading on arrival: a message's Message-ID -> its thread (`thread_id`), put with the message (an outbound one
 *     when SES gave it its Message-ID, in the sender's `sent` transaction); BatchGet of the ids a message refers to
 * - inbox subject: PK `PROJECT#<pid>#INBOX#<iid>`, SK `SUBJECT#<sha256(normalized subject) 16 hex>#<sha256(participant) 16 hex>`
 *     threading's fallback: (subject, participant) -> the newest thread (`thread_id`, `last_at`); put with each
 *     message for each participant (at most 10); TTL 14 days after `last_at`
 * - inbox message ref: PK `PROJECT#<pid>#INBOX#<iid>`, SK `MESSAGE_REF#<mid>`
 *     a message filed (-> `thread_id`): put with attribute_not_exists in the filing transaction (a redelivered
 *     notification files nothing twice) and by the transaction that sends an outbound one; TTL with the message
 * - inbox label: PK `PROJECT#<pid>#INBOX_LABELS#<iid>`, SK `LABEL#<lid>`
 *     labels CRUD (Query on prefix: every label of the inbox, at most MAX_LABELS); threads hold label ids. A partition
 *     of their own: the thread list and search read them beside the threads, and a Query in the inbox's partition
 *     (every message, thread and threading key) cost DynamoDB Local 75 ms at 10,000 threads against 3 ms here
 * - inbox draft: PK `PROJECT#<pid>#INBOX#<iid>`, SK `DRAFT#<did>`
 *     drafts CRUD (Query on prefix to list); a reply draft's uniqueness: SK `REPLY_DRAFT#<message id>` ->
 *     `draft_id`, put with attribute_not_exists in the draft's transaction, deleted with it
 * - inbox search index: no item; two objects in the inbound bucket: the open part (the inbox's `index_key`, at
 *     `index_version`), a new object per write by the inbox-index worker, and the base (`index_base`), rewritten when
 *     the open part is merged into it (shared/inboxes/search.ts)
 * - domain report: PK `PROJECT#<pid>#REPORTS#<did>`, SK `<DMARC|TLS>#<begin: epoch s, 10 digits>#<report key>`
 *     one DMARC aggregate or TLS report about the domain, as the inbound worker read it from its report address
 *     (shared/deliverability/ingest.ts; its rows gzip-compressed JSON); GET /domains/{id}/dmarc (Query on the days
 *     asked: SK between `DMARC#<from>` and `DMARC#<to>`), GET /domains/{id}/tls-reports (Query on `TLS#`, newest
 *     first); report key = the first 32 hex digits of SHA-256 of `<org name>\n<report id>`; TTL 400 days
 * - domain report id: PK `PROJECT#<pid>#REPORTS#<did>`, SK `<DMARC|TLS>_ID#<report key>`
 *     the report's uniqueness (a reporter resends, a report reaches two addresses): put with attribute_not_exists
 *     in the report's transaction, -> the SES message it came in (a redelivered notification is not a duplicate)
 * - report drops: PK `REPORT_DROPS#<did>`, SK `REPORT_DROPS`
 *     global: per domain id, the files its report addresses got that were not kept, counted by `<kind>_<reason>`
 *     (ADD; a dropped file may not say whose it is, so no project in the key); GET /domains/{id}/dmarc and
 *     /tls-reports read it (GetItem) after checking the domain is the caller's. Beside it, SK
 *     `DROP#<SES message id>#<file index>`: the marker put (attribute_not_exists) in the count's transaction, so a
 *     redelivered message counts nothing twice; TTL 400 days
 * - request log: PK `PROJECT#<pid>#LOGS#<shard>`, SK `LOG#<lid>`
 *     one entry per authenticated API request (method, path, status, duration, user agent, request id, the error's
 *     envelope; never a key, header or body), put beside the answer by the request pipeline
 *     (shared/logs/request-log.ts); GET /logs (the shards merged, newest first; lid is a UUIDv7 of the request's
 *     start), GET /logs/{id} (GetItem); sharded because every request of a project writes one; TTL 30 days
 */
import { createHash } from 'node:crypto';

export interface Key {
  PK: string;
  SK: string;
}

const projectPk = (projectId: string) => `PROJECT#${projectId}`;

export const project = (projectId: string): Key => ({ PK: projectPk(projectId), SK: 'PROJECT' });
export const defaultProject = (): Key => ({ PK: 'DEPLOYMENT', SK: 'DEFAULT_PROJECT' });

/** A project's API requests in one wall-clock second. */
export const rateWindow = (projectId: string, epochSecond: number): Key => ({
  PK: `RATE_LIMIT#${projectId}#${epochSecond}`,
  SK: 'RATE_LIMIT',
});
/** A project's accepted emails in one UTC day (`DAY#2026-11-25`) or month (`MONTH#2026-11`). */
export const sendCount = (projectId: string, period: string): Key => ({
  PK: `SEND_COUNT#${projectId}#${period}`,
  SK: 'SEND_COUNT',
});
/** The `period` of a send count: a UTC day (`2026-11-25`) or month (`2026-11`). */
export const sendCountPeriod = { day: (day: string) => `DAY#${day}`, month: (month: string) => `MONTH#${month}` };

export const apiKey = (projectId: string, apiKeyId: string): Key => ({
  PK: projectPk(projectId),
  SK: `API_KEY#${apiKeyId}`,
});
export const apiKeys = (projectId: string) => ({ PK: projectPk(projectId), prefix: 'API_KEY#' });
export const apiKeyHash = (sha256Hex: string): Key => ({ PK: `API_KEY_HASH#${sha256Hex}`, SK: 'API_KEY_HASH' });

export const segment = (projectId: string, segmentId: string): Key => ({
  PK: projectPk(projectId),
  SK: `SEGMENT#${segmentId}`,
});
export const segments = (projectId: string) => ({ PK: projectPk(projectId), prefix: 'SEGMENT#' });

const eventsPk = (projectId: string) => `${projectPk(projectId)}#EVENTS`;
/** The sort-key prefix of an event item (the webhook fan-out reads event items off the stream by it). */
export const EVENT_SK_PREFIX = 'EVENT#';
export const event = (projectId: string, eventId: string): Key => ({
  PK: `${eventsPk(projectId)}#${shardOf(eventId)}`,
  SK: `${EVENT_SK_PREFIX}${eventId}`,
});
export const events = (projectId: string): ShardedCollection => ({
  PKs: shardPks(eventsPk(projectId)),
  prefix: EVENT_SK_PREFIX,
});
/** Every authenticated request writes one entry: sharded like the per-email collections, so a busy project's requests spread over COLLECTION_SHARDS partitions. */
const logsPk = (projectId: string) => `${projectPk(projectId)}#LOGS`;
/** The partition keys of every project's request log and rate windows, as IAM's `dynamodb:LeadingKeys` patterns (functions/routes.ts `routeNeeds`). */
export const REQUEST_LOG_PK_PATTERN = `${projectPk('*')}#LOGS#*`;
export const RATE_WINDOW_PK_PATTERN = 'RATE_LIMIT#*';
/** The partition keys of every API key's hash item, as a `dynamodb:LeadingKeys` pattern (its `last_used_at`). */
export const API_KEY_HASH_PK_PATTERN = 'API_KEY_HASH#*';

export const requestLog = (projectId: string, logId: string): Key => ({
  PK: `${logsPk(projectId)}#${shardOf(logId)}`,
  SK: `LOG#${logId}`,
});
export const requestLogs = (projectId: string): ShardedCollection => ({
  PKs: shardPks(logsPk(projectId)),
  prefix: 'LOG#',
});

/** A collection of items under one partition whose sort keys share a prefix followed by the item id. */
export interface Collection {
  PK: string;
  prefix: string;
}

/**
 * The same, spread over several partitions (write sharding): the collections written for every
 * email (emails, events, pending entries, broadcast recipients, webhook deliveries) would otherwise
 * put one project's whole sending on one partition key, which takes 1,000 write units a second.
 * Readers merge the shards by sort key (table.ts `queryPage`).
 */
export interface ShardedCollection {
  PKs: string[];
  prefix: string;
}

/**
 * Partitions per sharded collection. An email costs about 8 write units on its own item over its
 * life (accepted, claimed, sent, delivered: transactional writes of a small item) and as many on
 * its events; a project sending 500 emails a second puts 500 x 8 / 16 = 250 write units a second
 * on each shard, a quarter of what a partition takes (bench/RESULTS.md measures it).
 */
export const COLLECTION_SHARDS = 16;
/** One of `shards` partitions for an id: from the random low bits of its UUIDv7 (its last two hex digits). */
const idShard = (id: string, shards: number): number => parseInt(id.replace(/-/g, '').slice(-2), 16) % shards;
/** An item's shard of its collection. */
export const shardOf = (id: string): number => idShard(id, COLLECTION_SHARDS);
const shardPks = (base: string): string[] =>
  Array.from({ length: COLLECTION_SHARDS }, (_, shard) => `${base}#${shard}`);

const emailsPk = (projectId: string) => `${projectPk(projectId)}#EMAILS`;
export const email = (projectId: string, emailId: string): Key => ({
  PK: `${emailsPk(projectId)}#${shardOf(emailId)}`,
  SK: `EMAIL#${emailId}`,
});
export const emails = (projectId: string): ShardedCollection => ({
  PKs: shardPks(emailsPk(projectId)),
  prefix: 'EMAIL#',
});
/**
 * GET /emails' filters: an index entry per email and value (PK `PROJECT#<pid>#EMAILS_BY#<filter>#<value>#<shard>`,
 * SK `EMAIL#<eid>`, the email's shard), written from the table's stream (shared/emails/list-index.ts); sharded
 * as the emails are, since one sender or tag can be a project's whole sending.
 */
export type EmailFilterKind = 'status' | 'from' | 'to' | 'tag';
const emailsByPk = (projectId: string, kind: EmailFilterKind, value: string) =>
  `${projectPk(projectId)}#EMAILS_BY#${kind}#${value}`;
export const emailsBy = (projectId: string, kind: EmailFilterKind, value: string): ShardedCollection => ({
  PKs: shardPks(emailsByPk(projectId, kind, value)),
  prefix: 'EMAIL#',
});
export const emailIndexEntry = (projectId: string, kind: EmailFilterKind, value: string, emailId: string): Key => ({
  PK: `${emailsByPk(projectId, kind, value)}#${shardOf(emailId)}`,
  SK: `EMAIL#${emailId}`,
});
/**
 * The id part of a sort key that sorts before every UUIDv7 minted at or after `ms` and after every
 * one minted before it (its 48-bit time, as the id writes it): GET /emails' created_after/before.
 */
export function idTimeBound(ms: number): string {
  const hex = Math.max(0, Math.min(ms, 2 ** 48 - 1))
    .toString(16)
    .padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8)}`;
}
/** Due emails are spread over a few GSI1 partitions so one busy minute is not one hot partition. */
export const EMAIL_DUE_SHARDS = 8;
export const emailDueShard = (shard: number) => `EMAIL_DUE#${shard}`;
export function emailDue(projectId: string, emailId: string, dueAt: string) {
  return { GSI1PK: emailDueShard(idShard(emailId, EMAIL_DUE_SHARDS)), GSI1SK: `${dueAt}#${projectId}#${emailId}` };
}
export const idempotency = (projectId: string, keyHash: string): Key => ({
  PK: projectPk(projectId),
  SK: `IDEMPOTENCY#${keyHash}`,
});
/** Waiting emails by From domain: deleting the domain cancels them with a Query of this partition. */
const pendingFromPk = (projectId: string, domainName: string) =>
  `${projectPk(projectId)}#PENDING_FROM#${domainName.toLowerCase()}`;
export const pendingEmailFrom = (projectId: string, domainName: string, emailId: string): Key => ({
  PK: `${pendingFromPk(projectId, domainName)}#${shardOf(emailId)}`,
  SK: `EMAIL#${emailId}`,
});
export const pendingEmailsFrom = (projectId: string, domainName: string): ShardedCollection => ({
  PKs: shardPks(pendingFromPk(projectId, domainName)),
  prefix: 'EMAIL#',
});
/** An email of a large batch before the batch commits: another prefix than `EMAIL#`, so no reader of emails sees it. */
export const stagedEmail = (projectId: string, emailId: string): Key => ({
  PK: projectPk(projectId),
  SK: `STAGED_EMAIL#${emailId}`,
});
export const emailBatch = (projectId: string, batchId: string): Key => ({
  PK: projectPk(projectId),
  SK: `EMAIL_BATCH#${batchId}`,
});
/** A project's live sends, permanent bounces and complaints in one UTC hour (`2026-11-25T14`), sharded by email id like its emails. */
const linksPk = (projectId: string, broadcastId: string) => `${projectPk(projectId)}#BROADCAST#${broadcastId}#LINKS`;
export const broadcastLink = (projectId: string, broadcastId: string, emailId: string, linkId: string): Key => ({
  PK: `${linksPk(projectId, broadcastId)}#${shardOf(emailId)}`,
  SK: `LINK#${linkId}`,
});
export const broadcastLinks = (projectId: string, broadcastId: string): ShardedCollection => ({
  PKs: shardPks(linksPk(projectId, broadcastId)),
  prefix: 'LINK#',
});
const metricsPk = (projectId: string) => `METRICS#${projectId}`;
/** The sort key of a metrics day (`2026-11-25`). */
export const metricsDaySk = (day: string) => `DAY#${day}`;
export const metricsDay = (projectId: string, emailId: string, day: string): Key => ({
  PK: `${metricsPk(projectId)}#${shardOf(emailId)}`,
  SK: metricsDaySk(day),
});
export const metricsDays = (projectId: string): ShardedCollection => ({
  PKs: shardPks(metricsPk(projectId)),
  prefix: 'DAY#',
});
const reputationPk = (projectId: string) => `REPUTATION#${projectId}`;
/** The sort key of a reputation hour (`2026-11-25T13`). */
export const reputationHourSk = (hour: string) => `HOUR#${hour}`;
export const reputationBucket = (projectId: string, emailId: string, hour: string): Key => ({
  PK: `${reputationPk(projectId)}#${shardOf(emailId)}`,
  SK: reputationHourSk(hour),
});
export const reputationBuckets = (projectId: string): ShardedCollection => ({
  PKs: shardPks(reputationPk(projectId)),
  prefix: 'HOUR#',
});
export const sesMessage = (messageId: string): Key => ({ PK: `SES_MESSAGE#${messageId}`, SK: 'SES_MESSAGE' });
export const sendRate = (epochSecond: number, shard = 0): Key => ({
  PK: shard ? `SEND_RATE#${epochSecond}#${shard}` : `SEND_RATE#${epochSecond}`,
  SK: 'SEND_RATE',
});
export const suppression = (projectId: string, address: string): Key => ({
  PK: projectPk(projectId),
  SK: `SUPPRESSION#${address.toLowerCase()}`,
});
/** The suppression's record again, under its id: lookups by id and the newest-first list (its prefix is not a prefix of `SUPPRESSION#`). */
export const suppressionById = (projectId: string, suppressionId: string): Key => ({
  PK: projectPk(projectId),
  SK: `SUPPRESSION_ID#${suppressionId}`,
});
export const suppressions = (projectId: string) => ({ PK: projectPk(projectId), prefix: 'SUPPRESSION_ID#' });

export const domain = (projectId: string, domainId: string): Key => ({
  PK: projectPk(projectId),
  SK: `DOMAIN#${domainId}`,
});
export const domains = (projectId: string) => ({ PK: projectPk(projectId), prefix: 'DOMAIN#' });
/** Global: one per domain name in the whole deployment, read only on its exact key. */
export const domainName = (name: string): Key => ({ PK: `DOMAIN_NAME#${name.toLowerCase()}`, SK: 'DOMAIN_NAME' });
/** A test twin's claim of a domain name: in the twin's partition (its sort key is outside the `DOMAIN#` prefix, so lists never see it). */
export const testDomainName = (projectId: string, name: string): Key => ({
  PK: projectPk(projectId),
  SK: `DOMAIN_NAME#${name.toLowerCase()}`,
});
export const domainCompliance = (projectId: string, domainId: string): Key => ({
  PK: projectPk(projectId),
  SK: `DOMAIN_COMPLIANCE#${domainId}`,
});
/** Domains sit in this GSI1 partition by their next compliance check, so the scheduled check finds the due ones without a Scan. */
export const DOMAINS_COMPLIANCE_DUE = 'DOMAIN_COMPLIANCE_DUE';
export const domainComplianceDue = (dueIso: string, domainId: string) => ({
  GSI1PK: DOMAINS_COMPLIANCE_DUE,
  GSI1SK: `${dueIso}#${domainId}`,
});
/** A domain claim (its sort key is outside the `DOMAIN#` prefix, so lists never see it), by the domain id it promises. */
export const domainClaim = (projectId: string, domainId: string): Key => ({
  PK: projectPk(projectId),
  SK: `DOMAIN_CLAIM#${domainId}`,
});
/** Global: a name's newest domain claim, read only on its exact key. */
export const domainClaimName = (name: string): Key => ({
  PK: `DOMAIN_CLAIM_NAME#${name.toLowerCase()}`,
  SK: 'DOMAIN_CLAIM_NAME',
});
/** The project's domain counter (its sort key is outside the `DOMAIN#` prefix, so lists never see it). */
export const domainCount = (projectId: string): Key => ({ PK: projectPk(projectId), SK: 'DOMAIN_COUNT' });
/** Domains SES is still verifying sit in this GSI1 partition, so the scheduled check finds them without a Scan. */
export const DOMAINS_UNSETTLED = 'DOMAIN_UNSETTLED';
export const domainUnsettled = (domainId: string) => ({ GSI1PK: DOMAINS_UNSETTLED, GSI1SK: domainId });
export const sesEvent = (messageId: string, eventHash: string): Key => ({
  PK: `SES_EVENT#${messageId}`,
  SK: eventHash,
});

export const oauthClient = (projectId: string, id: string): Key => ({
  PK: projectPk(projectId),
  SK: `OAUTH_CLIENT#${id}`,
});
export const oauthClients = (projectId: string) => ({ PK: projectPk(projectId), prefix: 'OAUTH_CLIENT#' });
/** Global: the public `client_id` -> its project, read only on its exact key (the token endpoint has no project). */
export const oauthClientId = (clientId: string): Key => ({ PK: `OAUTH_CLIENT_ID#${clientId}`, SK: 'OAUTH_CLIENT_ID' });
export const oauthCode = (sha256Hex: string): Key => ({ PK: `OAUTH_CODE#${sha256Hex}`, SK: 'OAUTH_CODE' });
export const oauthGrant = (projectId: string, grantId: string): Key => ({
  PK: projectPk(projectId),
  SK: `OAUTH_GRANT#${grantId}`,
});
export const oauthGrants = (projectId: string) => ({ PK: projectPk(projectId), prefix: 'OAUTH_GRANT#' });
export const oauthAccessToken = (sha256Hex: string): Key => ({
  PK: `OAUTH_ACCESS_TOKEN#${sha256Hex}`,
  SK: 'OAUTH_ACCESS_TOKEN',
});
export const oauthRefreshToken = (sha256Hex: string): Key => ({
  PK: `OAUTH_REFRESH_TOKEN#${sha256Hex}`,
  SK: 'OAUTH_REFRESH_TOKEN',
});

export const webhook = (projectId: string, webhookId: string): Key => ({
  PK: projectPk(projectId),
  SK: `WEBHOOK#${webhookId}`,
});
export const webhooks = (projectId: string) => ({ PK: projectPk(projectId), prefix: 'WEBHOOK#' });
/** The project's webhook counter (its sort key is outside the `WEBHOOK#` prefix, so lists never see it). */
export const webhookCount = (projectId: string): Key => ({ PK: projectPk(projectId), SK: 'WEBHOOK_COUNT' });
/** A webhook's deliveries sort under it by delivery id, which carries its event's time (shared/webhooks/deliveries.ts). */
const deliveriesPk = (projectId: string) => `${projectPk(projectId)}#DELIVERIES`;
export const webhookDelivery = (projectId: string, webhookId: string, deliveryId: string): Key => ({
  PK: `${deliveriesPk(projectId)}#${shardOf(deliveryId)}`,
  SK: `WEBHOOK_DELIVERY#${webhookId}#${deliveryId}`,
});
export const webhookDeliveries = (projectId: string, webhookId: string): ShardedCollection => ({
  PKs: shardPks(deliveriesPk(projectId)),
  prefix: `WEBHOOK_DELIVERY#${webhookId}#`,
});
/** Every delivery of a project again on GSI1 (sharded as the table's), newest first: GET /webhook-events. */
export const webhookEventsPartitions = (projectId: string): string[] => shardPks(`WEBHOOK_EVENTS#${projectId}`);
export const webhookEventsIndex = (projectId: string, deliveryId: string) => ({
  GSI1PK: `WEBHOOK_EVENTS#${projectId}#${shardOf(deliveryId)}`,
  GSI1SK: deliveryId,
});
/** A delivery's attempts, together in the partition its id picks: one Query lists them, newest first. */
const attemptsPk = (projectId: string, deliveryId: string) => `${projectPk(projectId)}#ATTEMPTS#${shardOf(deliveryId)}`;
export const webhookAttempt = (projectId: string, deliveryId: string, attemptId: string): Key => ({
  PK: attemptsPk(projectId, deliveryId),
  SK: `WEBHOOK_ATTEMPT#${deliveryId}#${attemptId}`,
});
export const webhookAttempts = (projectId: string, deliveryId: string): Collection => ({
  PK: attemptsPk(projectId, deliveryId),
  prefix: `WEBHOOK_ATTEMPT#${deliveryId}#`,
});

/** Contacts: one per lower-cased address per project (the contact email item claims the address). */
export const contact = (projectId: string, contactId: string): Key => ({
  PK: projectPk(projectId),
  SK: `CONTACT#${contactId}`,
});
export const contacts = (projectId: string) => ({ PK: projectPk(projectId), prefix: 'CONTACT#' });
export const contactCount = (projectId: string, shard: number): Key => ({
  PK: projectPk(projectId),
  SK: `CONTACT_COUNT#${shard}`,
});
export const contactEmail = (projectId: string, address: string): Key => ({
  PK: projectPk(projectId),
  SK: `CONTACT_EMAIL#${address.toLowerCase()}`,
});
/** A contact import's record (its cursor and counts: shared/audience/imports.ts). */
export const contactImport = (projectId: string, importId: string): Key => ({
  PK: projectPk(projectId),
  SK: `CONTACT_IMPORT#${importId}`,
});
export const contactImports = (projectId: string) => ({ PK: projectPk(projectId), prefix: 'CONTACT_IMPORT#' });
/** The project's one running import (shared/audience/imports.ts): taken in the import's creation, released in its end. */
export const contactImportRunning = (projectId: string): Key => ({
  PK: projectPk(projectId),
  SK: 'CONTACT_IMPORT_RUNNING',
});
/** One page of an import written (from row `start`): its marker, put in the page's transaction, and its counts. */
export const contactImportPage = (projectId: string, importId: string, start: number): Key => ({
  PK: projectPk(projectId),
  SK: `CONTACT_IMPORT_PAGE#${importId}#${String(start).padStart(9, '0')}`,
});
/** A segment's members have a partition of their own: the fan-out reads 100,000 of them without touching the project's other items. */
export const segmentMember = (projectId: string, segmentId: string, contactId: string): Key => ({
  PK: `${projectPk(projectId)}#SEGMENT#${segmentId}`,
  SK: `CONTACT#${contactId}`,
});
export const segmentMembers = (projectId: string, segmentId: string) => ({
  PK: `${projectPk(projectId)}#SEGMENT#${segmentId}`,
  prefix: 'CONTACT#',
});

export const topic = (projectId: string, topicId: string): Key => ({
  PK: projectPk(projectId),
  SK: `TOPIC#${topicId}`,
});
export const topics = (projectId: string) => ({ PK: projectPk(projectId), prefix: 'TOPIC#' });
/** The project's contact property schema: one item, so a contact write reads it in the round trip it already makes. */
export const contactProperties = (projectId: string): Key => ({ PK: projectPk(projectId), SK: 'CONTACT_PROPERTIES' });

export const template = (projectId: string, templateId: string): Key => ({
  PK: projectPk(projectId),
  SK: `TEMPLATE#${templateId}`,
});
export const templates = (projectId: string) => ({ PK: projectPk(projectId), prefix: 'TEMPLATE#' });
export const automation = (projectId: string, automationId: string): Key => ({
  PK: projectPk(projectId),
  SK: `AUTOMATION#${automationId}`,
});
export const automations = (projectId: string) => ({ PK: projectPk(projectId), prefix: 'AUTOMATION#' });
export const automationVersion = (projectId: string, automationId: string, version: number): Key => ({
  PK: projectPk(projectId),
  SK: `AUTOMATION_VERSION#${automationId}#${String(version).padStart(6, '0')}`,
});
export const automationTrigger = (projectId: string, eventName: string, automationId: string): Key => ({
  PK: `${projectPk(projectId)}#AUTOMATION_TRIGGER#${eventName}`,
  SK: `AUTOMATION#${automationId}`,
});
export const automationTriggers = (projectId: string, eventName: string) => ({
  PK: `${projectPk(projectId)}#AUTOMATION_TRIGGER#${eventName}`,
  prefix: 'AUTOMATION#',
});
export const automationSystemEvents = (projectId: string): Key => ({
  PK: projectPk(projectId),
  SK: 'AUTOMATION_SYSTEM_EVENTS',
});
/** An automation's runs: sharded (COLLECTION_SHARDS) by run id, as one event burst starts thousands at once. */
const automationRunsPk = (projectId: string, automationId: string) =>
  `${projectPk(projectId)}#AUTOMATION_RUNS#${automationId}`;
export const automationRun = (projectId: string, automationId: string, runId: string): Key => ({
  PK: `${automationRunsPk(projectId, automationId)}#${shardOf(runId)}`,
  SK: `RUN#${runId}`,
});
export const automationRuns = (projectId: string, automationId: string): ShardedCollection => ({
  PKs: shardPks(automationRunsPk(projectId, automationId)),
  prefix: 'RUN#',
});
const automationWaitersPk = (projectId: string, contactId: string, eventName: string) =>
  `${projectPk(projectId)}#AUTOMATION_WAIT#${contactId}#${eventName}`;
export const automationWaiter = (
  projectId: string,
  contactId: string,
  eventName: string,
  runId: string,
  stepKey: string,
): Key => ({ PK: automationWaitersPk(projectId, contactId, eventName), SK: `RUN#${runId}#${stepKey}` });
export const automationWaiters = (projectId: string, contactId: string, eventName: string) => ({
  PK: automationWaitersPk(projectId, contactId, eventName),
  prefix: 'RUN#',
});
/** Counters per automation, spread over AUTOMATION_METRIC_SHARDS items so a burst of runs is not one hot item. */
export const AUTOMATION_METRIC_SHARDS = 8;
export const automationMetrics = (projectId: string, automationId: string, shard: number): Key => ({
  PK: projectPk(projectId),
  SK: `AUTOMATION_METRICS#${automationId}#${shard}`,
});
export const automationMetricShard = (runId: string): number => idShard(runId, AUTOMATION_METRIC_SHARDS);
export const customEvent = (projectId: string, name: string): Key => ({
  PK: projectPk(projectId),
  SK: `CUSTOM_EVENT#${name}`,
});
export const customEventId = (projectId: string, eventId: string): Key => ({
  PK: projectPk(projectId),
  SK: `CUSTOM_EVENT_ID#${eventId}`,
});
export const templateAlias = (projectId: string, alias: string): Key => ({
  PK: projectPk(projectId),
  SK: `TEMPLATE_ALIAS#${alias}`,
});

export const broadcast = (projectId: string, broadcastId: string): Key => ({
  PK: projectPk(projectId),
  SK: `BROADCAST#${broadcastId}`,
});
export const broadcasts = (projectId: string) => ({ PK: projectPk(projectId), prefix: 'BROADCAST#' });
export const broadcastContent = (projectId: string, broadcastId: string): Key => ({
  PK: projectPk(projectId),
  SK: `BROADCAST_CONTENT#${broadcastId}`,
});
/** The fan-out's pages in flight (shared/broadcasts/fanout.ts): one item per claimed page, keyed by the contact id it starts after. */
const pagesPk = (projectId: string, broadcastId: string) => `${projectPk(projectId)}#BROADCAST#${broadcastId}#PAGES`;
export const broadcastPage = (projectId: string, broadcastId: string, after: string): Key => ({
  PK: pagesPk(projectId, broadcastId),
  SK: `PAGE#${after}`,
});
export const broadcastPages = (projectId: string, broadcastId: string) => ({
  PK: pagesPk(projectId, broadcastId),
  prefix: 'PAGE#',
});
/** Scheduled broadcasts wait in one GSI1 partition (few per minute), read by the scheduled-broadcast dispatcher. */
export const BROADCASTS_DUE = 'BROADCAST_DUE';
export const broadcastDue = (projectId: string, broadcastId: string, dueAt: string) => ({
  GSI1PK: BROADCASTS_DUE,
  GSI1SK: `${dueAt}#${projectId}#${broadcastId}`,
});
const recipientsPk = (projectId: string, broadcastId: string) => `${projectPk(projectId)}#BROADCAST#${broadcastId}`;
export const broadcastRecipient = (projectId: string, broadcastId: string, contactId: string): Key => ({
  PK: `${recipientsPk(projectId, broadcastId)}#${shardOf(contactId)}`,
  SK: `CONTACT#${contactId}`,
});
export const broadcastRecipients = (projectId: string, broadcastId: string): ShardedCollection => ({
  PKs: shardPks(recipientsPk(projectId, broadcastId)),
  prefix: 'CONTACT#',
});
export const unsubscribeSecret = (): Key => ({ PK: 'DEPLOYMENT', SK: 'UNSUBSCRIBE_SECRET' });
export const shareLinkSecret = (): Key => ({ PK: 'DEPLOYMENT', SK: 'SHARE_LINK_SECRET' });

/** Inbound mail: a received email per (SES message, project); ids are UUIDv7, so the list is newest first. */
export const receivedEmail = (projectId: string, receivedEmailId: string): Key => ({
  PK: projectPk(projectId),
  SK: `RECEIVED_EMAIL#${receivedEmailId}`,
});
export const receivedEmails = (projectId: string) => ({ PK: projectPk(projectId), prefix: 'RECEIVED_EMAIL#' });
/** Global: what the inbound worker made of one SES message for one project (a message can reach several projects). */
export const inboundMessage = (sesMessageId: string, projectId: string): Key => ({
  PK: `INBOUND_MESSAGE#${sesMessageId}`,
  SK: projectPk(projectId),
});

/** Inboxes (shared/inboxes): the inbox and its address claim in the project's partition; its threads, messages, labels and drafts in its own. */
export const inbox = (projectId: string, inboxId: string): Key => ({
  PK: projectPk(projectId),
  SK: `INBOX#${inboxId}`,
});
export const inboxes = (projectId: string) => ({ PK: projectPk(projectId), prefix: 'INBOX#' });
export const inboxAddress = (projectId: string, address: string): Key => ({
  PK: projectPk(projectId),
  SK: `INBOX_ADDRESS#${address.toLowerCase()}`,
});
export const inboxForward = (localPart: string): Key => ({ PK: `INBOX_FORWARD#${localPart}`, SK: 'INBOX_FORWARD' });
const inboxPk = (projectId: string, inboxId: string) => `${projectPk(projectId)}#INBOX#${inboxId}`;
/** Its labels apart from the messages: read by every thread list and search, a Query a large partition made slow (DynamoDB Local). */
const inboxLabelsPk = (projectId: string, inboxId: string) => `${projectPk(projectId)}#INBOX_LABELS#${inboxId}`;
/** The inbox's own partitions: everything in them goes when the inbox is deleted (shared/inboxes/cleanup.ts). */
export const inboxPartitions = (projectId: string, inboxId: string): string[] => [
  inboxPk(projectId, inboxId),
  inboxLabelsPk(projectId, inboxId),
];
export const inboxThread = (projectId: string, inboxId: string, threadId: string): Key => ({
  PK: inboxPk(projectId, inboxId),
  SK: `THREAD#${threadId}`,
});
export const inboxFolder = (projectId: string, inboxId: string, folder: string) =>
  `INBOX_FOLDER#${projectId}#${inboxId}#${folder}`;
export const inboxThreadInFolder = (
  projectId: string,
  inboxId: string,
  folder: string,
  lastAt: string,
  threadId: string,
) => ({
  GSI1PK: inboxFolder(projectId, inboxId, folder),
  GSI1SK: `${lastAt}#${threadId}`,
});
export const inboxMessage = (projectId: string, inboxId: string, threadId: string, messageId: string): Key => ({
  PK: inboxPk(projectId, inboxId),
  SK: `MESSAGE#${threadId}#${messageId}`,
});
export const inboxThreadMessages = (projectId: string, inboxId: string, threadId: string): Collection => ({
  PK: inboxPk(projectId, inboxId),
  prefix: `MESSAGE#${threadId}#`,
});
const digest = (value: string, hexChars: number) => createHash('sha256').update(value).digest('hex').slice(0, hexChars);
export const inboxMessageId = (projectId: string, inboxId: string, normalizedMessageId: string): Key => ({
  PK: inboxPk(projectId, inboxId),
  SK: `MESSAGE_ID#${digest(normalizedMessageId, 32)}`,
});
export const inboxSubject = (
  projectId: string,
  inboxId: string,
  normalizedSubject: string,
  participant: string,
): Key => ({
  PK: inboxPk(projectId, inboxId),
  SK: `SUBJECT#${digest(normalizedSubject, 16)}#${digest(participant, 16)}`,
});
/** A received email filed into the inbox (-> `thread_id`): put with attribute_not_exists with the message, so it is filed once. */
export const inboxMessageRef = (projectId: string, inboxId: string, messageId: string): Key => ({
  PK: inboxPk(projectId, inboxId),
  SK: `MESSAGE_REF#${messageId}`,
});
export const inboxLabel = (projectId: string, inboxId: string, labelId: string): Key => ({
  PK: inboxLabelsPk(projectId, inboxId),
  SK: `LABEL#${labelId}`,
});
export const inboxLabels = (projectId: string, inboxId: string): Collection => ({
  PK: inboxLabelsPk(projectId, inboxId),
  prefix: 'LABEL#',
});
export const inboxDraft = (projectId: string, inboxId: string, draftId: string): Key => ({
  PK: inboxPk(projectId, inboxId),
  SK: `DRAFT#${draftId}`,
});
export const inboxDrafts = (projectId: string, inboxId: string): Collection => ({
  PK: inboxPk(projectId, inboxId),
  prefix: 'DRAFT#',
});
export const inboxReplyDraft = (projectId: string, inboxId: string, messageId: string): Key => ({
  PK: inboxPk(projectId, inboxId),
  SK: `REPLY_DRAFT#${messageId}`,
});

const reportsPk = (projectId: string, domainId: string) => `${projectPk(projectId)}#REPORTS#${domainId}`;
export type ReportKindKey = 'DMARC' | 'TLS';
export const domainReport = (
  projectId: string,
  domainId: string,
  kind: ReportKindKey,
  begin: number,
  reportKey: string,
): Key => ({
  PK: reportsPk(projectId, domainId),
  SK: `${kind}#${String(Math.max(0, Math.floor(begin))).padStart(10, '0')}#${reportKey}`,
});
/** A domain's reports of one kind, by their period's start: `from`/`to` are epoch seconds, 10 digits (queryBetween). */
export const domainReports = (projectId: string, domainId: string, kind: ReportKindKey): Collection => ({
  PK: reportsPk(projectId, domainId),
  prefix: `${kind}#`,
});
export const reportBound = (epochSeconds: number): string =>
  String(Math.max(0, Math.floor(epochSeconds))).padStart(10, '0');
export const domainReportId = (projectId: string, domainId: string, kind: ReportKindKey, reportKey: string): Key => ({
  PK: reportsPk(projectId, domainId),
  SK: `${kind}_ID#${reportKey}`,
});
export const reportDrops = (domainId: string): Key => ({ PK: `REPORT_DROPS#${domainId}`, SK: 'REPORT_DROPS' });
/** One dropped file's marker: `file` is `<SES message id>#<attachment index>`. */
export const reportDropMarker = (domainId: string, file: string): Key => ({
  PK: `REPORT_DROPS#${domainId}`,
  SK: `DROP#${file}`,
});

/**
 * Every partition a project's data is in (the test-mode wipe, shared/project/test-data.ts, deletes
 * them): the project's own, its sharded collections, and those per From domain, segment and
 * broadcast (named by the project's items). A partition added above for a project's data is added here.
 */
export function projectPartitions(
  projectId: string,
  of: {
    domainNames: string[];
    segmentIds: string[];
    broadcastIds: string[];
    inboxIds?: string[];
    domainIds?: string[];
  },
): string[] {
  const base = projectPk(projectId);
  return [
    base,
    ...['EVENTS', 'EMAILS', 'LOGS', 'DELIVERIES', 'ATTEMPTS'].flatMap((collection) =>
      shardPks(`${base}#${collection}`),
    ),
    ...shardPks(metricsPk(projectId)),
    ...shardPks(reputationPk(projectId)),
    ...of.domainNames.flatMap((name) => shardPks(pendingFromPk(projectId, name))),
    ...of.segmentIds.map((id) => segmentMembers(projectId, id).PK),
    ...of.broadcastIds.flatMap((id) => [
      ...shardPks(recipientsPk(projectId, id)),
      ...shardPks(linksPk(projectId, id)),
      pagesPk(projectId, id),
    ]),
    ...(of.inboxIds ?? []).flatMap((id) => inboxPartitions(projectId, id)),
    ...(of.domainIds ?? []).map((id) => reportsPk(projectId, id)),
  ];
}
