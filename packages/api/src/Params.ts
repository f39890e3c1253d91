import { Schema } from "effect"

/**
 * An integer path or query parameter ("12" → 12), with a message that names what is expected. Ids are
 * 32-bit integers in storage, so a larger number can name nothing (and PostgreSQL refuses to compare
 * it with an `integer` column: a 500 before this bound).
 */
export const IntFromString = Schema.NumberFromString.pipe(
  Schema.int({ message: () => "must be an integer" }),
  Schema.between(-2_147_483_648, 2_147_483_647, { message: () => "must be an integer from -2147483648 to 2147483647" })
).annotations({
  // What the text must hold, for the OpenAPI document (the generic one says "a string to be decoded into a number").
  jsonSchema: { type: "integer", format: "int32", minimum: -2_147_483_648, maximum: 2_147_483_647 }
})

/**
 * A path parameter naming a row: the integer of `IntFromString`, decoded to that table's branded id
 * (`Ids.ts`), so a handler cannot pass a campaign id where a run id is expected. Same wire, same 422s.
 */
export const idFromString = <Id extends number>(id: Schema.Schema<Id, number>) => Schema.compose(IntFromString, id)

export const idPath = <const K extends string, Id extends number>(name: K, id: Schema.Schema<Id, number>) =>
  Schema.Struct({ [name]: idFromString(id) } as { [P in K]: ReturnType<typeof idFromString<Id>> })

/** Standard page parameters: `page` from 1, `limit` 1–100 (default 50). */
export const PageParams = Schema.Struct({
  page: Schema.optionalWith(IntFromString.pipe(Schema.greaterThanOrEqualTo(1, { message: () => "page must be ≥ 1" })), {
    default: () => 1
  }),
  limit: Schema.optionalWith(
    IntFromString.pipe(Schema.between(1, 100, { message: () => "limit must be between 1 and 100" })),
    { default: () => 50 }
  )
})

/**
 * The length limits of a text that is trimmed before it is checked, for the OpenAPI document: its JSON
 * Schema shows the text as sent, where limits checked after the trim do not appear by themselves.
 * `Schema.Trim.pipe(Schema.maxLength(64)).annotations(lengthLimits(1, 64))`.
 */
export const lengthLimits = (minLength: number, maxLength: number) => ({
  jsonSchema: { type: "string", ...(minLength > 0 ? { minLength } : {}), maxLength }
})

export const BooleanFromString = Schema.transform(Schema.Literal("true", "false", "1", "0"), Schema.Boolean, {
  strict: true,
  decode: (s) => s === "true" || s === "1",
  encode: (b) => (b ? "true" : "false")
})

export const Success = Schema.Struct({ success: Schema.Boolean, message: Schema.String })
