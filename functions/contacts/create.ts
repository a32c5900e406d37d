import { createContact } from '#shared/audience/contacts';
import { api, created } from '#shared/access/api';
import * as contactOps from '#shared/audience/operations/contacts';

export const handler = api(contactOps.create, async ({ body, caller }) => created(await createContact(caller, body)));
