import { Schema } from "effect"

/** An integer path or query parameter ("12" → 12), with a message that names what is expected. */
export const IntFromString = Schema.NumberFromString.pipe(
  Schema.int({ message: () => "must be an integer" })
).annotations({ message: () => "must be an integer" })

export const idPath = <const K extends string>(name: K) =>
  Schema.Struct({ [name]: IntFromString } as { [P in K]: typeof IntFromString })

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
