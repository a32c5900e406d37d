/**
 * The emails feature's model: the shapes other features' models build on too (addresses as
 * POST /emails, templates and broadcasts take them).
 */
import * as z from 'zod/mini';

/** `addr@domain` or `Display Name <addr@domain>`; at most 254 characters for the address itself. */
export const ADDRESS = /^(?:[^<>]{0,256}<)?([^\s@<>"(),;:]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+)>?$/;
export const address = z.string().check(
  z.trim(),
  z.maxLength(320),
  z.refine((value) => {
    const match = ADDRESS.exec(value);
    return !!match && match[1].length <= 254 && value.includes('<') === value.endsWith('>');
  }, 'must be an email address, optionally as "Name <address>"'),
);
export const addresses = z.union([address, z.array(address).check(z.minLength(1), z.maxLength(50))]);
