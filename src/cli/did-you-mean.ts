/**
 * The closest known word to a mistyped one, for "did you mean" hints on commands, flags and
 * configuration keys.
 */

/** Optimal string alignment distance: edits, with a swap of two neighbours counted as one. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i += 1) {
    rows.push(Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  }
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = rows[i] as number[];
      const above = rows[i - 1] as number[];
      let best = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row[j] = best;
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/**
 * Returns the known word closest to `word`, or undefined when none is close enough to be a
 * likely typo (at most a third of its letters changed, and never more than three).
 */
export function closestMatch(word: string, known: Iterable<string>): string | undefined {
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

/** `; did you mean "send"?` or the empty string, to end an "unknown …" message. */
export function didYouMean(word: string, known: Iterable<string>): string {
  const match = closestMatch(word, known);
  return match === undefined ? '' : `; did you mean "${match}"?`;
}
