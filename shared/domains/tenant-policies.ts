/** SES's managed reputation policies a tenant may have (no imports: the stack reads them too). */
export const REPUTATION_POLICIES = ['standard', 'strict', 'none'] as const;
export type ReputationPolicy = (typeof REPUTATION_POLICIES)[number];
