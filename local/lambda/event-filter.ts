/**
 * Lambda event filtering, the subset the workers use: a pattern is an object whose leaves are
 * arrays of allowed values (`{ eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: ['event'] } } } }`),
 * and `{ exists: true|false }` entries. The CDK stack passes the same pattern to
 * `FilterCriteria.filter`, so local and AWS drop the same records.
 */
export type FilterPattern = { [key: string]: FilterPattern | readonly unknown[] };

export function matchesFilter(record: unknown, pattern: FilterPattern): boolean {
  return Object.entries(pattern).every(([key, expected]) => {
    const value = record !== null && typeof record === 'object' ? (record as Record<string, unknown>)[key] : undefined;
    if (Array.isArray(expected)) {
      return expected.some((allowed) => {
        if (allowed !== null && typeof allowed === 'object' && 'exists' in allowed)
          return (value !== undefined) === (allowed as { exists: boolean }).exists;
        return value === allowed;
      });
    }
    return matchesFilter(value, expected as FilterPattern);
  });
}
