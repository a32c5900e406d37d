/**
 * Every relative link in README.md and docs/*.md leads somewhere: the file exists in the
 * repository, and a `#fragment` names a heading of the file it points at (GitHub's anchors: the
 * heading lower-cased, punctuation dropped, spaces as hyphens, `-1`, `-2` for repeats). Links to
 * other sites are not fetched.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const root = join(__dirname, '..', '..');
const documents = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The markdown outside fenced code blocks, where a link or a heading means one. */
const prose = (markdown: string): string => markdown.replace(/^```[\s\S]*?^```/gm, '');

function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, title] of prose(readFileSync(file, 'utf8')).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = title
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\- _]/gu, '')
      .replace(/ /g, '-');
    const repeats = seen.get(slug) ?? 0;
    seen.set(slug, repeats + 1);
    anchors.add(repeats ? `${slug}-${repeats}` : slug);
  }
  return anchors;
}

const links = documents.flatMap((document) =>
  [...prose(readFileSync(join(root, document), 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1])
    .filter((target) => !/^[a-z]+:/.test(target))
    .map((target) => ({ document, target })),
);

it('finds the links to check', () => {
  expect(documents).toContain('docs/api.md');
  expect(links.length).toBeGreaterThan(20);
});

it.each(documents)('every relative link in %s resolves', (document) => {
  const broken = links
    .filter((link) => link.document === document)
    .flatMap(({ target }) => {
      const [path, fragment] = target.split('#');
      const file = path ? join(root, dirname(document), decodeURI(path)) : join(root, document);
      if (!existsSync(file)) return [`${target}: no file ${relative(root, file)}`];
      if (fragment && file.endsWith('.md') && !anchorsOf(file).has(fragment))
        return [`${target}: no heading #${fragment} in ${relative(root, file)}`];
      return [];
    });
  expect(broken).toEqual([]);
});
