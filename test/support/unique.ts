/** Names no other test of the run uses: the suites share one runtime and one table. */
let counter = 0;

/** `label-<time>-<n>`: unique within the run, and across runs that share a table. */
export const uniqueName = (label: string): string => `${label}-${Date.now().toString(36)}-${counter++}`;
