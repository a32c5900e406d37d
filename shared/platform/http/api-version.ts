/** The API's only version (the contract's `2026-08-14`): the default, the Api-Version header, and every event's and webhook's `api_version`. */
export const API_VERSION = '2026-08-14';
