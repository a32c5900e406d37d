/**
 * A DMARC aggregate report (RFC 7489 appendix C; DMARCbis's fields tolerated) read from its XML
 * into a DmarcReport. Pure: text in, report or drop out.
 *
 * Safety before parsing: any `<!DOCTYPE` or `<!ENTITY` is refused unparsed (`unsafe_xml`: entity
 * expansion bombs, external entities; no reporter needs a DTD), and the parser (fast-xml-parser:
 * pure JavaScript, no native code, entity processing off) expands nothing. The document must be
 * well-formed as a whole (its validator runs first), so a truncated report is `malformed`, never
 * a partial one. The five predefined entities and character references are decoded in text values
 * by hand (they expand to one character each).
 *
 * Reading: namespaces are stripped (Microsoft's and DMARCbis reports carry an xmlns), element order
 * does not matter, unknown elements are ignored (`version`, `np`, `testing`, `discovery_method`,
 * `generator`, `extensions`, ...), an empty element counts as absent, keywords are read without case
 * (`Pass`), domains are lower-cased. Required, else `malformed` with the path of what is missing or
 * wrong: report_metadata/org_name, report_id, date_range/begin and end (epoch seconds);
 * policy_published/domain and p; one record or more (RFC 7489's schema), each with row/source_ip
 * (IPv4 or IPv6), count (a non-negative integer) and policy_evaluated (disposition
 * none|quarantine|reject, or DMARCbis's pass; dkim and spf pass|fail). A reason without its type
 * (KDDI's empty `<reason>`) is kept as its comment, or left out when it has none. An
 * optional value that is present must be valid too (pct 0-100, adkim/aspf r|s): a report that
 * states something wrong is not half-believed.
 */
import { isIP } from 'node:net';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import * as z from 'zod/mini';
import { dropped, errorMessage, issueDetail } from './drops';
import type { DmarcRecord, DmarcReport, Dropped } from './model';

const UNSAFE = /<!\s*(DOCTYPE|ENTITY)/i;

/** The elements that may repeat, by path (namespaces stripped): anything else repeated is malformed. */
const REPEATED = /* @__PURE__ */ (() =>
  new Set([
    'feedback.record',
    'feedback.report_metadata.error',
    'feedback.record.row.policy_evaluated.reason',
    'feedback.record.auth_results.dkim',
    'feedback.record.auth_results.spf',
  ]))();

const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** `&amp;`, `&#233;`, `&#xE9;` to their character; anything else (an undeclared entity) stays as written. */
function decodeEntities(value: string): string {
  if (!value.includes('&')) return value;
  return value.replace(/&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-z]{2,4});/g, (whole, name: string) => {
    if (name[0] !== '#') return PREDEFINED[name] ?? whole;
    const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
    return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

const parser = /* @__PURE__ */ (() =>
  new XMLParser({
    processEntities: false,
    htmlEntities: false,
    removeNSPrefix: true,
    ignoreAttributes: true,
    ignoreDeclaration: true,
    ignorePiTags: true,
    parseTagValue: false,
    trimValues: true,
    isArray: (_name, jPath) => REPEATED.has(String(jPath)),
    tagValueProcessor: (_name, value) => decodeEntities(value),
  }))();

/** Empty elements (`<sp/>`, `<sp></sp>`, `<reason><type/></reason>`) as absent: removed from objects and lists. */
function dropEmpty(node: unknown): unknown {
  if (node === '') return undefined;
  if (Array.isArray(node)) {
    const items = node.map(dropEmpty).filter((v) => v !== undefined);
    return items.length ? items : undefined;
  }
  if (node && typeof node === 'object') {
    const element = node as Record<string, unknown>;
    for (const key of Object.keys(element)) {
      const value = dropEmpty(element[key]);
      if (value === undefined) delete element[key];
      else element[key] = value;
    }
    return Object.keys(element).length ? element : undefined;
  }
  return node;
}

const says = (message: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? 'missing' : message),
});
const element = <Shape extends z.core.$ZodLooseShape>(shape: Shape) => z.object(shape, says('not an element'));
const text = () => z.string(says('not text'));
/** An optional value, `null` when absent. */
const orNull = <T extends z.ZodMiniType>(schema: T) =>
  z.pipe(
    z.optional(schema),
    z.transform((v) => v ?? null),
  );
const lower = () => text().check(z.toLowerCase());
const keyword = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.pipe(lower(), z.enum(values, { error: `not one of ${values.join(', ')}` }));
const wholeNumber = () =>
  z.pipe(text().check(z.regex(/^\d{1,15}$/, 'not a non-negative integer')), z.transform(Number));
/** A domain name as reports write it: lower-cased, without a trailing dot. */
const domainName = () =>
  z.pipe(
    lower(),
    z.transform((v) => v.replace(/\.$/, '')),
  );
const alignment = () =>
  z.pipe(
    z.optional(keyword(['r', 's'])),
    z.transform((v) => v ?? 'r'),
  );

const record = /* @__PURE__ */ (() =>
  z.pipe(
    element({
      row: element({
        source_ip: lower().check(z.refine((v) => isIP(v) !== 0, 'not an IP address')),
        count: wholeNumber(),
        policy_evaluated: element({
          disposition: keyword(['none', 'pass', 'quarantine', 'reject']),
          dkim: keyword(['pass', 'fail']),
          spf: keyword(['pass', 'fail']),
          reason: z.optional(z.array(element({ type: z.optional(lower()), comment: z.optional(text()) }))),
        }),
      }),
      identifiers: z.optional(
        element({
          header_from: z.optional(domainName()),
          envelope_from: orNull(lower()),
          envelope_to: orNull(lower()),
        }),
      ),
      auth_results: z.optional(
        element({
          dkim: z.optional(
            z.array(element({ domain: z.optional(domainName()), selector: orNull(text()), result: lower() })),
          ),
          spf: z.optional(
            z.array(element({ domain: z.optional(domainName()), scope: orNull(lower()), result: lower() })),
          ),
        }),
      ),
    }),
    z.transform(
      ({ row, identifiers, auth_results }): DmarcRecord => ({
        source_ip: row.source_ip,
        count: row.count,
        disposition: row.policy_evaluated.disposition,
        dkim: row.policy_evaluated.dkim,
        spf: row.policy_evaluated.spf,
        header_from: identifiers?.header_from ?? '',
        envelope_from: identifiers?.envelope_from ?? null,
        envelope_to: identifiers?.envelope_to ?? null,
        reasons: (row.policy_evaluated.reason ?? []).map((r) => [r.type, r.comment].filter(Boolean).join(': ')),
        dkim_results: (auth_results?.dkim ?? []).map((d) => ({ ...d, domain: d.domain ?? '' })),
        spf_results: (auth_results?.spf ?? []).map((s) => ({ ...s, domain: s.domain ?? '' })),
      }),
    ),
  ))();

/** `<feedback>` (its content) to a DmarcReport. */
const feedback = /* @__PURE__ */ (() =>
  z.pipe(
    element({
      report_metadata: element({
        org_name: text(),
        email: orNull(text()),
        report_id: text(),
        date_range: element({ begin: wholeNumber(), end: wholeNumber() }),
        error: z.optional(z.array(text())),
      }),
      policy_published: element({
        domain: domainName(),
        p: lower(),
        sp: orNull(lower()),
        np: orNull(lower()),
        pct: orNull(wholeNumber().check(z.refine((v) => v <= 100, 'not a percentage'))),
        adkim: alignment(),
        aspf: alignment(),
      }),
      record: z.array(record, says('no record')),
    }),
    z.transform(
      ({ report_metadata: meta, policy_published: policy, record: records }): DmarcReport => ({
        kind: 'dmarc',
        report_id: meta.report_id,
        org_name: meta.org_name,
        email: meta.email,
        begin: meta.date_range.begin,
        end: meta.date_range.end,
        domain: policy.domain,
        policy: {
          p: policy.p,
          sp: policy.sp,
          pct: policy.pct,
          adkim: policy.adkim,
          aspf: policy.aspf,
          np: policy.np,
        },
        records,
        errors: meta.error ?? [],
      }),
    ),
  ))();

/** A DMARC aggregate report from its XML text (decoded; sniffed as XML by its first `<`). */
export function readDmarcReport(xml: string): { ok: true; report: DmarcReport } | Dropped {
  const unsafe = UNSAFE.exec(xml);
  if (unsafe) return dropped('unsafe_xml', `${unsafe[0]} at character ${unsafe.index}: DTDs and entities are refused`);
  const valid = XMLValidator.validate(xml);
  if (valid !== true)
    return dropped(
      'malformed',
      `not well-formed XML: ${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col})`,
    );
  let document: Record<string, unknown>;
  try {
    document = parser.parse(xml);
  } catch (error) {
    return dropped('malformed', `not readable XML: ${errorMessage(error)}`);
  }
  const roots = Object.keys(document);
  if (roots.length !== 1 || Array.isArray(document[roots[0]]))
    return dropped('malformed', roots.length ? 'XML with several root elements' : 'XML without an element');
  if (roots[0] !== 'feedback') return dropped('not_a_report', `XML whose root is <${roots[0]}>, not <feedback>`);
  const parsed = feedback.safeParse(dropEmpty(document.feedback) ?? {}, { reportInput: true });
  if (!parsed.success) return dropped('malformed', issueDetail(parsed.error));
  return { ok: true, report: parsed.data };
}
