import { createContact } from '#shared/contacts';
import { api, created } from '#shared/http/api';
import * as contactOps from '#shared/operations/contacts';

export const handler = api(contactOps.create, async ({ body, caller }) => created(await createContact(caller, body)));
