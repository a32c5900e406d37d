/**
 * A bare email address (`local@domain`, no display name), as the suppression list keys it. No
 * zod here, so workers can check addresses without carrying the schema library.
 */
export const BARE_ADDRESS = /^[^\s@<>"(),;:]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
export const MAX_ADDRESS_LENGTH = 254;
export const isAddress = (value: string): boolean => value.length <= MAX_ADDRESS_LENGTH && BARE_ADDRESS.test(value);
