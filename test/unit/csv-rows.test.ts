/**
 * The contact import's CSV as streams (shared/audience/csv-rows.ts): a read from any row's byte
 * offset gives exactly the rows the read from the start gave after it, whatever the file's line
 * endings, quotes and multi-byte characters, and wherever the chunks of the download split it;
 * the first pass refuses what is not UTF-8 or not CSV with the reason the import fails with.
 */
import fc from 'fast-check';
import {
  csvRows,
  headerOf,
  InvalidCsv,
  MAX_CSV_RECORD_BYTES,
  scanCsv,
  type CsvRow,
} from '../../shared/audience/csv-rows';
import { bySize, deep, seedFrom } from '../support/depth';

/** The fuzzed property's seed: fixed in `npm test`, random under `npm run test:deep`; PROPERTY_SEED=<seed> replays one. */
const SEED = seedFrom('PROPERTY_SEED', 20_261_127);
// test:deep runs ten times the cases: minutes, not the 30 s a unit test gets
if (deep) jest.setTimeout(600_000);

/** `bytes` as a download delivers them: chunks of `size`. */
const streamOf = (bytes: Buffer, size = 7) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += size) controller.enqueue(new Uint8Array(bytes.subarray(i, i + size)));
      controller.close();
    },
  });

async function rowsFrom(file: Buffer, offset: number, delimiter: string, chunk = 5): Promise<CsvRow[]> {
  const rows: CsvRow[] = [];
  for await (const row of csvRows(streamOf(file.subarray(offset), chunk), offset, delimiter)) rows.push(row);
  return rows;
}

it('reads the header, where the data starts, the line ending and the rows; the BOM is not part of the header', async () => {
  const file = Buffer.from(
    '\ufeffemail,name\r\na@example.com,"Li, ""B"""\r\n\r\nb@example.com,"two\r\nlines é"\r\nc@example.com,C',
  );
  const scanned = await scanCsv(streamOf(file));
  expect(scanned).toEqual({ header: ['email', 'name'], dataOffset: 15, delimiter: '\r\n', rows: 3, resumeOffset: 15 });
  const rows = await rowsFrom(file, scanned.dataOffset, scanned.delimiter);
  expect(rows.map((r) => r.cells)).toEqual([
    ['a@example.com', 'Li, "B"'],
    ['b@example.com', 'two\r\nlines é'],
    ['c@example.com', 'C'],
  ]);
  expect(rows.at(-1)!.end).toBe(file.length);
  expect((await scanCsv(streamOf(file), 2)).resumeOffset).toBe(rows[1].end); // after 2 rows: where the third starts
});

it('resumed at any row, reads the rows after it exactly as the read from the start did (fuzzed)', async () => {
  const cell = fc.oneof(
    fc.stringMatching(/^[a-zé€ ,]{0,6}$/),
    fc.stringMatching(/^[a-z\r\n,"]{0,6}$/).map((s) => `"${s.replace(/"/g, '""')}"`),
  );
  const file = fc.record({
    ending: fc.constantFrom('\n', '\r\n', '\r'),
    rows: fc.array(fc.array(cell, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 8 }),
    chunk: fc.integer({ min: 1, max: 9 }),
  });
  await fc.assert(
    fc.asyncProperty(file, async ({ ending, rows, chunk }) => {
      const bytes = Buffer.from(['email,x', ...rows.map((cells) => cells.join(','))].join(ending) + ending);
      const scanned = await scanCsv(streamOf(bytes, chunk));
      const all = await rowsFrom(bytes, scanned.dataOffset, scanned.delimiter, chunk);
      expect(all).toHaveLength(scanned.rows);
      for (const [i, row] of all.entries())
        expect(await rowsFrom(bytes, row.end, scanned.delimiter, chunk)).toEqual(all.slice(i + 1));
    }),
    { seed: SEED, numRuns: bySize(300, 3_000) },
  );
});

it('fails what is not UTF-8 or not CSV, with the reason an import shows', async () => {
  const fails = (bytes: Buffer, chunk = 3) =>
    scanCsv(streamOf(bytes, chunk)).then(
      () => 'read',
      (error: Error) => (error instanceof InvalidCsv ? error.message : `not InvalidCsv: ${error}`),
    );
  expect(await fails(Buffer.from('email\ncaf\xe9@example.com\n', 'latin1'))).toBe('the file is not UTF-8 text');
  expect(await fails(Buffer.concat([Buffer.from('email\nab'), Buffer.from([0xc3])]))).toBe(
    'the file is not UTF-8 text',
  ); // cut mid-character
  expect(await fails(Buffer.from('email\n"open\n'))).toMatch(/^the file is not CSV: Quote Not Closed/);
  expect(await fails(Buffer.from(''))).toBe('the file has no header row');
  expect(await fails(Buffer.from(`email\n${'x'.repeat(MAX_CSV_RECORD_BYTES + 1024)}\n`), 64 * 1024)).toMatch(
    /^the file is not CSV: Max Record Size/,
  );
});

it("tells whether a file's first bytes hold its whole header row", () => {
  expect(headerOf('\ufeff email , name \na@example.com')).toEqual({ names: ['email', 'name'], ended: true });
  expect(headerOf('email,name\n')).toEqual({ names: ['email', 'name'], ended: true });
  expect(headerOf('email,na')).toEqual({ names: ['email', 'na'], ended: false });
  expect(() => headerOf('"email')).toThrow(/Quote Not Closed/);
});
