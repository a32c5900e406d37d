/**
 * `npm run test:timings`: folds the last run's per-file times (test-results/jest.json and
 * test-results/jest-chaos.json, written by ./results-reporter.js after every run) into the committed
 * timing file test/timings.json that ./sequencer.js orders every run by. A file the results name gets
 * its new time (seconds, one decimal); a file they do not name keeps its old one; a file that no
 * longer exists is dropped. Refresh it from a full `npm test` (CI's own run, or one on a quiet
 * machine), not from one file's run on a busy one, and commit it.
 */
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..', '..');
const timingsFile = path.join(root, 'test', 'timings.json');
const resultFiles = ['jest.json', 'jest-chaos.json'].map((name) => path.join(root, 'test-results', name));

/** A result's file as a path from the repository's root: results name it absolutely, maybe in another clone (CI's). */
function inRepository(name) {
  const parts = name.split(path.sep);
  for (let i = parts.lastIndexOf('test'); i >= 0; i = parts.lastIndexOf('test', i - 1)) {
    const file = parts.slice(i).join('/');
    if (fs.existsSync(path.join(root, file))) return file;
  }
  return undefined;
}

const old = fs.existsSync(timingsFile) ? JSON.parse(fs.readFileSync(timingsFile, 'utf8')).files : {};
const files = { ...old };
let read = 0;
for (const file of resultFiles.filter((f) => fs.existsSync(f))) {
  for (const result of JSON.parse(fs.readFileSync(file, 'utf8')).testResults) {
    if (!result.endTime || !result.startTime) continue;
    const file = inRepository(result.name);
    if (!file) continue;
    files[file] = Math.round((result.endTime - result.startTime) / 100) / 10;
    read++;
  }
}
if (read === 0) {
  console.error('No results under test-results/: run `npm test` first.');
  process.exit(1);
}
for (const file of Object.keys(files)) if (!fs.existsSync(path.join(root, file))) delete files[file];
const sorted = Object.fromEntries(Object.entries(files).sort(([a], [b]) => a.localeCompare(b)));
fs.writeFileSync(
  timingsFile,
  `${JSON.stringify({ about: 'seconds per test file in a full run; npm run test:timings refreshes it (test/support/refresh-timings.js)', files: sorted }, null, 2)}\n`,
);
console.log(`test/timings.json: ${read} files from the last run, ${Object.keys(sorted).length} in all`);
