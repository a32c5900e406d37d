/** How many domains a project may have (MAX_DOMAINS_PER_PROJECT, default 50: SES's 10,000 identities are the account's). A leaf: GET /usage names it without the domains feature. */
export const maxDomainsPerProject = (): number =>
  Number(process.env.MAX_DOMAINS_PER_PROJECT) > 0 ? Math.floor(Number(process.env.MAX_DOMAINS_PER_PROJECT)) : 50;
