/**
 * Decoding of column values that the two drivers return differently (booleans: 0/1 vs true/false;
 * JSON: text vs parsed), and encoding of values for binding (better-sqlite3 binds no booleans or objects).
 */
import { Effect, Option, Schema } from "effect"

/** A boolean bound as 0/1, which both dialects store in their boolean column. */
export const boolParam = (value: boolean): number => (value ? 1 : 0)

/** A JSON value bound as text (PostgreSQL casts it to JSONB, SQLite stores the text). */
export const jsonParam = (value: unknown): string | null =>
  value === null || value === undefined ? null : JSON.stringify(value)

// ------------------------------------------------------------------------------------------ row schemas
// Every repository decodes whole rows with a `Schema.Struct` of these, kept next to its queries.

/** An integer column (PostgreSQL returns COUNT and BIGINT as strings). */
export const Int: Schema.Schema<number, number | string> = Schema.Union(Schema.Number, Schema.NumberFromString)

/** An id column decoded to its branded id (`Columns.Id(CampaignId)`). */
export const Id = <B extends number>(brand: Schema.Schema<B, number>): Schema.Schema<B, number | string> =>
  Schema.compose(Int, brand)

/** A timestamp column as ISO-8601 UTC (PostgreSQL returns `Date`, SQLite the stored text). */
export const Ts: Schema.Schema<string, string | Date> = Schema.Union(
  Schema.String,
  Schema.transform(Schema.DateFromSelf, Schema.String, {
    strict: true,
    decode: (date) => date.toISOString(),
    encode: (text) => new Date(text)
  })
)

/** A boolean column (PostgreSQL returns `true`/`false`, SQLite `1`/`0`). */
export const Bool: Schema.Schema<boolean, boolean | 0 | 1> = Schema.Union(
  Schema.Boolean,
  Schema.transform(Schema.Literal(0, 1), Schema.Boolean, {
    strict: true,
    decode: (bit) => bit === 1,
    encode: (flag) => (flag ? 1 : 0)
  })
)

/** A JSON column (PostgreSQL returns it parsed, SQLite as text). */
export const Json = <A, I>(schema: Schema.Schema<A, I>): Schema.Schema<A, I | string> =>
  Schema.Union(Schema.parseJson(schema), schema)

/** A JSON object column (free-form user data: contexts, metadata, configurations). */
export const JsonObject = Json(Schema.Record({ key: Schema.String, value: Schema.Unknown }))

/** Decodes query rows with `schema`; a row that does not fit is a defect (the schema and the table disagree). */
export const decodeRows = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknown(Schema.Array(schema))
  return (rows: ReadonlyArray<unknown>) => Effect.orDie(decode(rows))
}

/** The first decoded row, if the query returned any. */
export const decodeFirst = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = decodeRows(schema)
  return (rows: ReadonlyArray<unknown>) => Effect.map(decode(rows), (decoded) => Option.fromNullable(decoded[0]))
}

/** The one row a statement always returns (`INSERT … RETURNING`); none is a defect. */
export const decodeSingle = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = decodeRows(schema)
  return (rows: ReadonlyArray<unknown>) =>
    Effect.flatMap(decode(rows), (decoded) =>
      decoded.length === 1 ? Effect.succeed(decoded[0]!) : Effect.dieMessage(`expected one row, got ${decoded.length}`))
}

/** `{ id }` rows, as `RETURNING id` and `SELECT id` give them. */
export const IdRow = Schema.Struct({ id: Int })
