/**
 * Reading a contacts CSV as a stream: one record at a time through csv-parse (quoted fields, embedded
 * commas and newlines, a BOM, CRLF), in batches, so a file of any size is read in constant memory.
 *
 * Header names are trimmed and lower-cased; `phone_number` is required; an optional `timezone` column
 * (IANA) gives a contact its own calling-window zone; every other column becomes the contact's
 * `initial_context`. Problems are collected (the first rows of each kind, and a count) while reading,
 * so one upload reports everything wrong with it at once.
 */
import { parse } from "csv-parse"
import { Effect, Either, Schema, Stream } from "effect"
import { normalizeForCampaign } from "../phone-numbers/PhoneAddress.js"
import { isTimeZone } from "@agentline/api/campaigns/CampaignSettings"

export interface ContactRow {
  /** The record's line in the file, counting the header as 1 (what a spreadsheet shows). */
  readonly row_number: number
  readonly phone_number: string
  readonly timezone: string | null
  readonly initial_context: Record<string, unknown>
}

/** The columns that override an agent's greeting per contact (the reference's); not copied into the context as they are. */
export const GREETING_OVERRIDE_COLUMNS = ["greeting_override_type", "greeting_override_text", "greeting_override_recording_id"] as const

/**
 * A contact's greeting override from its CSV columns, as the reference builds it: `{type: "text", text}`
 * when the type is `text` and the text is not blank, `{type: "audio", recording_id}` when the type is
 * `audio` with an id; otherwise none (the agent's own greeting plays).
 */
export const greetingOverride = (
  columns: Readonly<Record<string, string>>
): { readonly type: "text"; readonly text: string } | { readonly type: "audio"; readonly recording_id: string } | undefined => {
  const type = (columns.greeting_override_type ?? "").trim().toLowerCase()
  const text = columns.greeting_override_text ?? ""
  const recordingId = (columns.greeting_override_recording_id ?? "").trim()
  if (type === "text" && text.trim() !== "") return { type: "text", text }
  if (type === "audio" && recordingId !== "") return { type: "audio", recording_id: recordingId }
  return undefined
}

/** The file is not usable as contacts: unreadable, empty, or with rows at fault (the message lists them). */
export class CsvInvalid extends Schema.TaggedError<CsvInvalid>()("CsvInvalid", { message: Schema.String }) {}

const MAX_LISTED = 5

/** Row numbers of one kind of problem: the first few, and how many in all. */
export class RowList {
  readonly rows: Array<number> = []
  count = 0
  add(row: number) {
    this.count++
    if (this.rows.length < MAX_LISTED) this.rows.push(row)
  }
  describe() {
    return this.rows.join(", ") + (this.count > this.rows.length ? ` and ${this.count - this.rows.length} more` : "")
  }
}

export interface CsvProblems {
  readonly invalidPhones: RowList
  readonly emptyPhones: RowList
  readonly duplicates: RowList
  readonly badTimezones: RowList
  /** Rows with a NUL character in a cell: PostgreSQL cannot store one (refused, never stripped). */
  readonly nulCells: RowList
  readonly emptyVariables: Map<string, RowList>
}

export const makeProblems = (): CsvProblems => ({
  invalidPhones: new RowList(),
  emptyPhones: new RowList(),
  duplicates: new RowList(),
  badTimezones: new RowList(),
  nulCells: new RowList(),
  emptyVariables: new Map()
})

/** The message for a 400, or undefined when the file is fine. */
export const describeProblems = (problems: CsvProblems): string | undefined => {
  const parts: Array<string> = []
  if (problems.emptyPhones.count > 0) parts.push(`Empty phone_number in rows: ${problems.emptyPhones.describe()}.`)
  if (problems.invalidPhones.count > 0) {
    parts.push(
      `Invalid phone numbers in rows: ${problems.invalidPhones.describe()}. Use E.164 (e.g. +14155550100), a SIP URI or an extension.`
    )
  }
  if (problems.duplicates.count > 0) {
    parts.push(`Duplicate phone numbers in rows: ${problems.duplicates.describe()}. Phone numbers in a campaign must be unique.`)
  }
  if (problems.badTimezones.count > 0) {
    parts.push(`Unknown time zones in rows: ${problems.badTimezones.describe()}. Use IANA names such as America/New_York.`)
  }
  if (problems.nulCells.count > 0) {
    parts.push(`NUL characters (\\u0000) in rows: ${problems.nulCells.describe()}. Remove them; they cannot be stored.`)
  }
  for (const [name, rows] of problems.emptyVariables) {
    parts.push(`Template variable '${name}' is empty in rows: ${rows.describe()}.`)
  }
  return parts.length === 0 ? undefined : parts.join(" ")
}

/**
 * What csv-parse found wrong, said in terms of the file: which row (records counted from the header as
 * 1, as `row_number` is) and which line (csv-parse counts lines, a quoted field may span several).
 */
export const describeCsvError = (error: unknown): string => {
  const e = error as { readonly code?: unknown; readonly lines?: unknown; readonly records?: unknown; readonly message?: unknown } | null
  // `records` is how many records were complete before the one at fault.
  const row = typeof e?.records === "number" ? e.records + 1 : undefined
  const code = typeof e?.code === "string" ? e.code : undefined
  const line = typeof e?.lines === "number" ? e.lines : undefined
  const where = row === undefined ? (line === undefined ? "an unknown place" : `line ${line}`) : `row ${row}${line === undefined ? "" : ` (line ${line})`}`
  switch (code) {
    case "CSV_QUOTE_NOT_CLOSED":
      return `The file is not readable as CSV: ${row === undefined ? "a row" : `row ${row}`} opens a quoted field (") that is never closed; ` +
        `the file ends inside it${line === undefined ? "" : ` at line ${line}`}. Close the quote, or double a quote inside a quoted field ("")`
    case "CSV_INVALID_CLOSING_QUOTE":
      return `The file is not readable as CSV: in ${where} a quoted field is followed by more characters after its closing quote; ` +
        `quote the whole field and double any quote inside it ("")`
    case "CSV_INVALID_OPENING_QUOTE":
      return `The file is not readable as CSV: in ${where} a quote (") appears inside an unquoted field; ` +
        `quote the whole field and double any quote inside it ("")`
    default: {
      const message = typeof e?.message === "string" ? e.message : String(error)
      return `The file is not readable as CSV at ${where}: ${message}`
    }
  }
}

const hasNul = (cell: string) => cell.includes("\u0000")

/**
 * The most contact rows one file (one campaign) may have (see docs/security.md): an import is checked
 * whole before anything is written, which keeps every phone number of the file in memory.
 */
export const MAX_CONTACT_ROWS = 100_000

export const tooManyRows = (max: number) =>
  new CsvInvalid({ message: `The file has more than ${max} contact rows, the most one campaign takes; split it into several campaigns` })

/**
 * Streams the file's contacts in batches. Structural problems (no header, no `phone_number` column,
 * columns the agent needs but the file lacks, unreadable CSV, more than `maxRows` rows) fail the
 * stream at once; row problems (duplicates within the file included) are added to `problems` and their
 * rows skipped.
 */
export const readContacts = <E>(
  bytes: Stream.Stream<Uint8Array, E>,
  options: {
    readonly requiredVariables: ReadonlyArray<string>
    readonly problems: CsvProblems
    readonly batchSize?: number
    /** Default `MAX_CONTACT_ROWS`. */
    readonly maxRows?: number
  }
): Stream.Stream<ReadonlyArray<ContactRow>, E | CsvInvalid> => {
  const maxRows = options.maxRows ?? MAX_CONTACT_ROWS
  const seen = new Set<string>()
  let headers: Array<string> | undefined
  let phoneIndex = -1
  let timezoneIndex = -1
  let record = 0
  // csv-parse's parser processes each written chunk synchronously, so writing one chunk and draining
  // its records keeps exactly one chunk in flight: the stream reads the file only as fast as the
  // database takes the batches. (Its WHATWG TransformStream would queue up to 1,024 chunks ahead.)
  // A parse error is known as soon as `write` returns (`parser.errored`); its 'error' event comes later.
  const records = Stream.suspend(() => {
    const parser = parse({ bom: true, skip_empty_lines: true, relax_column_count: true, trim: false })
    parser.on("error", () => {})
    const unreadable = (error: unknown) => new CsvInvalid({ message: describeCsvError(error) })
    const drain = (out: Array<Array<string>> = []): Array<Array<string>> => {
      let next: Array<string> | null
      while ((next = parser.read()) !== null) out.push(next)
      return out
    }
    const feed = (chunk: Uint8Array): Either.Either<Array<Array<string>>, CsvInvalid> => {
      parser.write(chunk)
      const out = drain()
      return parser.errored ? Either.left(unreadable(parser.errored)) : Either.right(out)
    }
    // The end of the input completes a last record without a newline, and is where an unclosed quote
    // shows: csv-parse does both in its flush, which runs after `end()` returns, so wait for the end.
    const finish = Stream.fromEffect(Effect.async<Array<Array<string>>, CsvInvalid>((resume) => {
      const out: Array<Array<string>> = []
      parser.on("readable", () => drain(out))
      parser.once("error", (error) => resume(Effect.fail(unreadable(error))))
      parser.once("end", () => resume(Effect.succeed(out)))
      parser.end()
    })).pipe(Stream.flattenIterables)
    return bytes.pipe(
      Stream.mapEffect((chunk) => feed(chunk)),
      Stream.flattenIterables,
      Stream.concat(finish)
    ) as Stream.Stream<Array<string>, E | CsvInvalid>
  })
  return records.pipe(
    Stream.mapEffect((cells): Either.Either<ReadonlyArray<ContactRow>, CsvInvalid> => {
      record++
      if (headers === undefined) {
        if (cells.some(hasNul)) {
          return Either.left(new CsvInvalid({ message: "The header row contains NUL characters (\\u0000); remove them" }))
        }
        headers = cells.map((h) => h.trim().toLowerCase())
        phoneIndex = headers.indexOf("phone_number")
        timezoneIndex = headers.indexOf("timezone")
        if (phoneIndex < 0) {
          return Either.left(new CsvInvalid({
            message: `Source must contain a 'phone_number' column (found: ${headers.map((h) => `'${h}'`).join(", ") || "no columns"})`
          }))
        }
        const missing = options.requiredVariables.filter((v) => !headers!.includes(v))
        if (missing.length > 0) {
          return Either.left(new CsvInvalid({
            message: `Workflow uses template variables that are missing from the source data: ${
              missing.map((m) => `'${m}'`).join(", ")
            }. Add the missing columns to the CSV, or give the variables a default in the agent ({{name | default}}).`
          }))
        }
        return Either.right([])
      }
      const row = record
      if (row - 1 > maxRows) return Either.left(tooManyRows(maxRows))
      if (cells.some(hasNul)) {
        options.problems.nulCells.add(row)
        return Either.right([])
      }
      const raw = (cells[phoneIndex] ?? "").trim()
      if (raw === "") {
        options.problems.emptyPhones.add(row)
        return Either.right([])
      }
      const phone = normalizeForCampaign(raw)
      if (Either.isLeft(phone)) {
        options.problems.invalidPhones.add(row)
        return Either.right([])
      }
      const zone = timezoneIndex >= 0 ? (cells[timezoneIndex] ?? "").trim() : ""
      if (zone !== "" && !isTimeZone(zone)) {
        options.problems.badTimezones.add(row)
        return Either.right([])
      }
      if (seen.has(phone.right)) {
        options.problems.duplicates.add(row)
        return Either.right([])
      }
      seen.add(phone.right)
      const context: Record<string, unknown> = {}
      const overrideColumns: Record<string, string> = {}
      headers.forEach((name, i) => {
        if (i === phoneIndex || i === timezoneIndex || name === "") return
        if ((GREETING_OVERRIDE_COLUMNS as ReadonlyArray<string>).includes(name)) overrideColumns[name] = cells[i] ?? ""
        else context[name] = cells[i] ?? ""
      })
      const override = greetingOverride(overrideColumns)
      if (override !== undefined) context.greeting_override = override
      for (const variable of options.requiredVariables) {
        if (String(context[variable] ?? "").trim() === "") {
          const rows = options.problems.emptyVariables.get(variable) ?? new RowList()
          rows.add(row)
          options.problems.emptyVariables.set(variable, rows)
        }
      }
      return Either.right([{ row_number: row, phone_number: phone.right, timezone: zone === "" ? null : zone, initial_context: context }])
    }),
    Stream.flattenIterables,
    Stream.rechunk(options.batchSize ?? 1000),
    Stream.chunks,
    Stream.map((chunk) => [...chunk])
  )
}
