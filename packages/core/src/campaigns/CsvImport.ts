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
import { Data, Either, Stream } from "effect"
import { normalizeForCampaign } from "../phone-numbers/PhoneAddress.js"

export interface ContactRow {
  /** The record's line in the file, counting the header as 1 (what a spreadsheet shows). */
  readonly row_number: number
  readonly phone_number: string
  readonly timezone: string | null
  readonly initial_context: Record<string, string>
}

export class CsvInvalid extends Data.TaggedError("CsvInvalid")<{ readonly message: string }> {}

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
  readonly emptyVariables: Map<string, RowList>
}

export const makeProblems = (): CsvProblems => ({
  invalidPhones: new RowList(),
  emptyPhones: new RowList(),
  duplicates: new RowList(),
  badTimezones: new RowList(),
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
  for (const [name, rows] of problems.emptyVariables) {
    parts.push(`Template variable '${name}' is empty in rows: ${rows.describe()}.`)
  }
  return parts.length === 0 ? undefined : parts.join(" ")
}

const isTimeZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone })
    return true
  } catch {
    return false
  }
}

/**
 * Streams the file's contacts in batches. Structural problems (no header, no `phone_number` column,
 * columns the agent needs but the file lacks, unreadable CSV) fail the stream at once; row problems
 * are added to `problems` and their rows skipped.
 */
export const readContacts = <E>(
  bytes: Stream.Stream<Uint8Array, E>,
  options: {
    readonly requiredVariables: ReadonlyArray<string>
    readonly problems: CsvProblems
    readonly batchSize?: number
  }
): Stream.Stream<ReadonlyArray<ContactRow>, E | CsvInvalid> => {
  let headers: Array<string> | undefined
  let phoneIndex = -1
  let timezoneIndex = -1
  let record = 0
  // csv-parse's parser processes each written chunk synchronously, so writing one chunk and draining
  // its records keeps exactly one chunk in flight: the stream reads the file only as fast as the
  // database takes the batches. (Its WHATWG TransformStream would queue up to 1,024 chunks ahead.)
  const records = Stream.suspend(() => {
    const parser = parse({ bom: true, skip_empty_lines: true, relax_column_count: true, trim: false })
    let failure: unknown
    parser.on("error", (error) => (failure = error))
    const drain = (): Either.Either<Array<Array<string>>, CsvInvalid> => {
      const out: Array<Array<string>> = []
      let record: Array<string> | null
      while ((record = parser.read()) !== null) out.push(record)
      return failure === undefined
        ? Either.right(out)
        : Either.left(new CsvInvalid({ message: `The file is not readable as CSV: ${(failure as Error)?.message ?? String(failure)}` }))
    }
    const feed = (chunk: Uint8Array) => {
      parser.write(chunk)
      return drain()
    }
    // A final newline completes a last record without one; the empty line it may add is skipped.
    const finish = Stream.suspend(() => {
      const last = feed(new TextEncoder().encode("\n"))
      parser.end()
      return Either.match(last, { onLeft: Stream.fail, onRight: Stream.fromIterable })
    })
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
      const context: Record<string, string> = {}
      headers.forEach((name, i) => {
        if (i !== phoneIndex && i !== timezoneIndex && name !== "") context[name] = cells[i] ?? ""
      })
      for (const variable of options.requiredVariables) {
        if ((context[variable] ?? "").trim() === "") {
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
