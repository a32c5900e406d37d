/**
 * Matching request paths against API Gateway route templates (`/segments/{segment_id}`), and the
 * greedy last segment API Gateway allows (`/dashboard/{proxy+}`: the rest of the path, slashes included).
 */
export interface PathTemplate {
  path: string;
}

const compiled = new Map<string, { regex: RegExp; names: string[] }>();

function compile(template: string) {
  let entry = compiled.get(template);
  if (!entry) {
    const names: string[] = [];
    const source = template
      .split('/')
      .map((segment) => {
        const param = /^\{([A-Za-z0-9_]+)(\+?)\}$/.exec(segment);
        if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        names.push(param[1]);
        return param[2] ? '(.+?)' : '([^/]+)';
      })
      .join('/');
    entry = { regex: new RegExp(`^${source}/?$`), names };
    compiled.set(template, entry);
  }
  return entry;
}

/** The path parameters when `path` matches `template` (URL-decoded, as API Gateway gives them), else undefined. */
export function matchPath(template: string, path: string): Record<string, string> | undefined {
  const { regex, names } = compile(template);
  const match = regex.exec(path);
  if (!match) return undefined;
  const params: Record<string, string> = {};
  names.forEach((name, i) => {
    try {
      params[name] = decodeURIComponent(match[i + 1]);
    } catch {
      params[name] = match[i + 1];
    }
  });
  return params;
}
