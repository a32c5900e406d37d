/**
 * Every answer the API suites get is checked against the OpenAPI response schema of its route and
 * status (the zod schema in the route's operation): the schema must accept it, and the answer may
 * have no field the schema does not name. The schemas are what the OpenAPI document publishes and
 * the domain's record types are what the handlers send, so this is the test that the two agree.
 * A mismatch fails the request's test with the path of the field.
 */
import type * as z from 'zod/mini';
import { fallbackRoute, matchRoute } from '../../functions/routes';
import { documentedResponses } from '../../shared/platform/http/operation';

/** Keys of `sent` that parsing dropped: fields the schema does not name. */
function unnamedFields(sent: unknown, parsed: unknown, at: string): string[] {
  if (Array.isArray(sent) && Array.isArray(parsed))
    return sent.flatMap((item, i) => unnamedFields(item, parsed[i], `${at}[${i}]`));
  if (!sent || typeof sent !== 'object' || !parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return [];
  return Object.entries(sent).flatMap(([name, value]) =>
    name in parsed
      ? unnamedFields(value, (parsed as Record<string, unknown>)[name], `${at}.${name}`)
      : [`${at}.${name}`],
  );
}

/** What is wrong with `body` as the answer `status` to `method path`, or undefined. */
export function responseShapeProblem(
  method: string,
  rawPath: string,
  status: number,
  body: unknown,
  contentType: string | null,
): string | undefined {
  if (!contentType?.startsWith('application/json')) return undefined; // HTML pages, redirects, empty answers
  const path = new URL(rawPath, 'http://local').pathname;
  const { operation } = matchRoute(method, path)?.route ?? fallbackRoute;
  const spec = documentedResponses(operation)[status];
  if (!spec)
    return `${method} ${path} answered ${status}, which its operation (${operation.operationId}) does not document`;
  const schema = spec.schema as z.ZodMiniType | undefined;
  if (!schema) return undefined;
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return `${method} ${path} ${status}: the answer does not fit ${operation.operationId}'s response schema at ${['body', ...issue.path.map(String)].join('.')}: ${issue.message}`;
  }
  const extra = unnamedFields(body, parsed.data, 'body');
  if (extra.length)
    return `${method} ${path} ${status}: ${operation.operationId}'s response schema does not name ${extra.slice(0, 5).join(', ')}`;
  return undefined;
}
