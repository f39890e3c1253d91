/**
 * Which part of a download a `Range` header asks for (RFC 9110 §14), so audio players can read a
 * recording's length and seek in it. Parsing is `range-parser` (jshttp's, as in Express); the
 * choices around it follow the RFC:
 * - no header, another unit than `bytes`, or a malformed header: the whole file (a server may ignore
 *   a Range it does not understand);
 * - one range (overlapping or adjacent ones are combined first): that part, 206;
 * - several disjoint ranges: the whole file (no `multipart/byteranges`; players ask for one range);
 * - none satisfiable (or an invalid one, last before first): 416 with the size (`bytes *\/size`). A
 *   suffix longer than the file (`bytes=-1000` of 500 bytes) is the whole file, as the RFC says
 *   (range-parser refuses it).
 * - `If-Range` present: the whole file. Downloads carry no validator (no ETag, no Last-Modified),
 *   so a conditional range can never be known to match.
 */
import parseRange from "range-parser"

export type RangeChoice =
  | { readonly _tag: "Whole" }
  /** Bytes `start` to `end`, both included (the header's own convention). */
  | { readonly _tag: "Part"; readonly start: number; readonly end: number }
  | { readonly _tag: "Unsatisfiable" }

const whole: RangeChoice = { _tag: "Whole" }
const unsatisfiable: RangeChoice = { _tag: "Unsatisfiable" }

const SUFFIX = /^\s*bytes\s*=\s*-\s*(\d+)\s*$/i

export const chooseRange = (headers: { readonly range?: string | undefined; readonly ifRange?: string | undefined }, size: number): RangeChoice => {
  const header = headers.range
  if (header === undefined || headers.ifRange !== undefined) return whole
  const unit = header.slice(0, Math.max(0, header.indexOf("="))).trim().toLowerCase()
  if (unit !== "bytes") return whole
  const parsed = parseRange(size, `bytes=${header.slice(header.indexOf("=") + 1)}`, { combine: true })
  if (parsed === -2) return whole
  if (parsed === -1) {
    const suffix = SUFFIX.exec(header)
    return suffix !== null && Number(suffix[1]) > 0 && size > 0 ? { _tag: "Part", start: 0, end: size - 1 } : unsatisfiable
  }
  if (parsed.length !== 1) return whole
  return { _tag: "Part", start: parsed[0]!.start, end: parsed[0]!.end }
}

/** The `Content-Range` of a part, or of a refusal (`bytes *\/size`). */
export const contentRange = (choice: RangeChoice, size: number): string | undefined =>
  choice._tag === "Part" ? `bytes ${choice.start}-${choice.end}/${size}` : choice._tag === "Unsatisfiable" ? `bytes */${size}` : undefined
