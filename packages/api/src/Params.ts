import { Schema } from "effect"

/**
 * An integer path or query parameter ("12" → 12), with a message that names what is expected. Ids are
 * 32-bit integers in storage, so a larger number can name nothing (and PostgreSQL refuses to compare
 * it with an `integer` column: a 500 before this bound).
 */
export const IntFromString = Schema.NumberFromString.pipe(
  Schema.int({ message: () => "must be an integer" }),
  Schema.between(-2_147_483_648, 2_147_483_647, { message: () => "must be an integer from -2147483648 to 2147483647" })
)

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

export const BooleanFromString = Schema.transform(Schema.Literal("true", "false", "1", "0"), Schema.Boolean, {
  strict: true,
  decode: (s) => s === "true" || s === "1",
  encode: (b) => (b ? "true" : "false")
})

export const Success = Schema.Struct({ success: Schema.Boolean, message: Schema.String })
