/**
 * A streamed reply cut into sentences as it arrives, so speech synthesis starts on the first sentence
 * instead of the whole reply. Pure: `push` the text deltas, `flush` the rest at the end.
 */

export interface SentenceBuffer {
  readonly pending: string
}

export const emptySentenceBuffer: SentenceBuffer = { pending: "" }

/** A sentence ends at `.`, `!`, `?` or `;` (with closing quotes or brackets) followed by white space, or at a line break. */
const BOUNDARY = /[.!?;…]+["'”’)\]]*\s+|\n+/g

/** Past this many characters without a boundary, a comma or a dash is enough (a long clause still starts speaking). */
const LONG = 160

export const pushText = (buffer: SentenceBuffer, delta: string): readonly [SentenceBuffer, ReadonlyArray<string>] => {
  let text = buffer.pending + delta
  const sentences: Array<string> = []
  for (;;) {
    BOUNDARY.lastIndex = 0
    const match = BOUNDARY.exec(text)
    let cut = match === null ? -1 : match.index + match[0].length
    if (cut < 0 && text.length > LONG) {
      const soft = Math.max(text.lastIndexOf(", ", LONG), text.lastIndexOf(" - ", LONG))
      if (soft > 0) cut = soft + 2
    }
    if (cut < 0) break
    const sentence = text.slice(0, cut).trim()
    if (sentence !== "") sentences.push(sentence)
    text = text.slice(cut)
  }
  return [{ pending: text }, sentences]
}

export const flushText = (buffer: SentenceBuffer): ReadonlyArray<string> => {
  const rest = buffer.pending.trim()
  return rest === "" ? [] : [rest]
}
