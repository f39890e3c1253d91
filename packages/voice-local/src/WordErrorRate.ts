/**
 * Word error rate: (substitutions + deletions + insertions) / words in the reference, from the word
 * level edit distance. Case and punctuation are ignored.
 */

export const words = (text: string): ReadonlyArray<string> =>
  text.toLowerCase().replace(/[^a-z0-9' ]+/g, " ").split(/\s+/).filter((word) => word.length > 0)

/** The fewest word substitutions, deletions and insertions that turn `hypothesis` into `reference`. */
export const wordErrors = (reference: string, hypothesis: string): number => {
  const ref = words(reference)
  const hyp = words(hypothesis)
  let previous = Array.from({ length: hyp.length + 1 }, (_, j) => j)
  for (let i = 1; i <= ref.length; i++) {
    const current = [i]
    for (let j = 1; j <= hyp.length; j++) {
      const substitution = previous[j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1)
      current.push(Math.min(substitution, previous[j]! + 1, current[j - 1]! + 1))
    }
    previous = current
  }
  return previous[hyp.length]!
}

/** Errors over all pairs divided by the reference words of all pairs (0 for no reference words). */
export const wordErrorRate = (pairs: ReadonlyArray<{ readonly reference: string; readonly hypothesis: string }>): number => {
  const total = pairs.reduce((n, pair) => n + words(pair.reference).length, 0)
  if (total === 0) return 0
  return pairs.reduce((n, pair) => n + wordErrors(pair.reference, pair.hypothesis), 0) / total
}
