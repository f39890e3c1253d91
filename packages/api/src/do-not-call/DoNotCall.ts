/**
 * The do-not-call list's wire shapes. Numbers are given as people write them and stored normalized
 * like contacts' numbers (E.164, a SIP URI or a numeric extension); national forms need `country_code`.
 */
import { Schema } from "effect"

export const DoNotCallEntry = Schema.Struct({
  phone_number: Schema.String,
  reason: Schema.NullOr(Schema.String),
  /** `api`: added through the API; `run`: the caller asked during a call (`run_id`). */
  source: Schema.Literal("api", "run"),
  run_id: Schema.NullOr(Schema.Int),
  created_at: Schema.String
}).annotations({ identifier: "DoNotCallEntry" })
export type DoNotCallEntry = typeof DoNotCallEntry.Type

export const DoNotCallPage = Schema.Struct({
  entries: Schema.Array(DoNotCallEntry),
  total_count: Schema.Int,
  page: Schema.Int,
  limit: Schema.Int,
  total_pages: Schema.Int
})

const CountryCode = Schema.String.pipe(Schema.pattern(/^[A-Za-z]{2}$/, { message: () => "country_code must be a two-letter country code, e.g. US" }))

export const AddDoNotCallRequest = Schema.Struct({
  phone_numbers: Schema.Array(Schema.String).pipe(
    Schema.minItems(1, { message: () => "phone_numbers must list 1 to 10000 numbers" }),
    Schema.maxItems(10_000, { message: () => "phone_numbers must list 1 to 10000 numbers" })
  ),
  reason: Schema.optionalWith(Schema.NullOr(Schema.String.pipe(Schema.maxLength(500))), { default: () => null }),
  country_code: Schema.optionalWith(Schema.NullOr(CountryCode), { default: () => null })
})
export type AddDoNotCallRequest = typeof AddDoNotCallRequest.Type

export const AddDoNotCallResponse = Schema.Struct({
  /** Numbers newly listed. */
  added: Schema.Int,
  /** Numbers that were listed already (their entry is kept as it was). */
  already_listed: Schema.Int
})

/** A CSV uploaded through `/campaign/source/upload-url` (its `file_key`), with a `phone_number` column. */
export const ImportDoNotCallRequest = Schema.Struct({
  file_key: Schema.String.pipe(Schema.minLength(1, { message: () => "file_key is required: upload the CSV first" })),
  reason: Schema.optionalWith(Schema.NullOr(Schema.String.pipe(Schema.maxLength(500))), { default: () => null })
})
export type ImportDoNotCallRequest = typeof ImportDoNotCallRequest.Type

export const DoNotCallCheck = Schema.Struct({
  phone_number: Schema.String,
  listed: Schema.Boolean,
  entry: Schema.NullOr(DoNotCallEntry)
})

export const PhoneNumberQuery = Schema.Struct({
  phone_number: Schema.String,
  country_code: Schema.optional(CountryCode)
})
