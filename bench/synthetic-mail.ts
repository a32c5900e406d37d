/**
 * Synthetic mail text for the inbox search's scale: a seeded generator and a vocabulary of 30,000 words of 2-4
 * syllables drawn Zipf-distributed (the word of rank r in proportion to 1 / (r + 1)), as real text is. Shared by
 * bench/inboxes.ts and test/unit/inbox-search-index.test.ts, so the test's 5,000 messages are the benchmark's kind.
 */

/** A seeded generator (mulberry32): the same vocabulary and mail every run. */
export function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 30,000 words of 2-4 syllables; `sentence(n)` draws n of them Zipf-distributed. */
export function vocabulary(rand: () => number) {
  const pick = <T>(list: T[]) => list[Math.floor(rand() * list.length)];
  const syllables = [...'bcdfghjklmnprstvz'].flatMap((c) => [...'aeiou'].map((v) => c + v));
  const set = new Set<string>();
  while (set.size < 30_000) set.add(Array.from({ length: 2 + Math.floor(rand() * 3) }, () => pick(syllables)).join(''));
  const words = [...set];
  const cumulative: number[] = [];
  let total = 0;
  for (let r = 0; r < words.length; r++) cumulative.push((total += 1 / (r + 1)));
  const zipf = () => {
    const x = rand() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return words[lo];
  };
  const sentence = (n: number) => Array.from({ length: n }, zipf).join(' ');
  return { words, sentence, pick };
}
