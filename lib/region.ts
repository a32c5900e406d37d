/** The one region the service runs in (Sydney): SES identities and the domain `region` field (DESIGN.md) assume it. */
export const REGION_NAME = 'ap-southeast-2';
