/**
 * What a call's conversation cost, from its usage and a price table. Pure. The defaults are vendors'
 * list prices (USD) as recorded in the voice runtime reference, marked there "verify before use": an
 * operator with a contract sets their own with `AGENTLINE_PRICES` (a JSON file of this shape, merged
 * over the defaults by service key). Services without a price count as 0 and are listed as unpriced.
 */
import { Context, Schema } from "effect"

const Rate = Schema.Number.pipe(Schema.nonNegative())

export const PriceTable = Schema.Struct({
  /** Per model key (`openai:gpt-4.1-mini`): USD per million input and output tokens. */
  llm: Schema.optionalWith(
    Schema.Record({ key: Schema.String, value: Schema.Struct({ input_per_million: Rate, output_per_million: Rate }) }),
    { default: () => ({}) }
  ),
  /** Per speech-to-text service key (`deepgram:nova-3`, `local`): USD per minute of audio. */
  stt: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Struct({ per_minute: Rate }) }), { default: () => ({}) }),
  /** Per text-to-speech service key (`elevenlabs:<voice>` or `elevenlabs`, `local`): USD per million characters. */
  tts: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Struct({ per_million_characters: Rate }) }), {
    default: () => ({})
  })
})
export type PriceTable = typeof PriceTable.Type

export const defaultPrices: PriceTable = {
  llm: {
    "openai:gpt-4o-mini": { input_per_million: 0.15, output_per_million: 0.6 },
    "openai:gpt-4.1-mini": { input_per_million: 0.4, output_per_million: 1.6 }
  },
  stt: {
    "deepgram:nova-3": { per_minute: 0.0048 },
    "openai:whisper-1": { per_minute: 0.006 },
    local: { per_minute: 0 }
  },
  tts: {
    elevenlabs: { per_million_characters: 50 },
    cartesia: { per_million_characters: 50 },
    "openai:tts-1": { per_million_characters: 15 },
    local: { per_million_characters: 0 }
  }
}

/** `override`'s entries over `base`'s, service by service. */
export const mergePrices = (base: PriceTable, override: PriceTable): PriceTable => ({
  llm: { ...base.llm, ...override.llm },
  stt: { ...base.stt, ...override.stt },
  tts: { ...base.tts, ...override.tts }
})

/** The price table the runtime uses. */
export class Prices extends Context.Reference<Prices>()("@agentline/voice/Prices", { defaultValue: () => defaultPrices }) {}

export interface CallUsage {
  readonly llm: Readonly<Record<string, { readonly inputTokens: number; readonly outputTokens: number }>>
  readonly stt: Readonly<Record<string, { readonly seconds: number }>>
  readonly tts: Readonly<Record<string, { readonly characters: number }>>
}

/** A key's price: the exact key, else its provider (`elevenlabs:<voice>` → `elevenlabs`). */
const lookup = <A>(table: Readonly<Record<string, A>>, key: string): A | undefined =>
  table[key] ?? table[key.split(":")[0]!]

const round = (usd: number) => Math.round(usd * 1_000_000) / 1_000_000

export const costOf = (prices: PriceTable, usage: CallUsage) => {
  const unpriced: Array<string> = []
  let llm = 0
  for (const [key, u] of Object.entries(usage.llm)) {
    const price = lookup(prices.llm, key)
    if (price === undefined) unpriced.push(`llm:${key}`)
    else llm += (u.inputTokens * price.input_per_million + u.outputTokens * price.output_per_million) / 1_000_000
  }
  let stt = 0
  for (const [key, u] of Object.entries(usage.stt)) {
    const price = lookup(prices.stt, key)
    if (price === undefined) unpriced.push(`stt:${key}`)
    else stt += (u.seconds / 60) * price.per_minute
  }
  let tts = 0
  for (const [key, u] of Object.entries(usage.tts)) {
    const price = lookup(prices.tts, key)
    if (price === undefined) unpriced.push(`tts:${key}`)
    else tts += (u.characters * price.per_million_characters) / 1_000_000
  }
  return {
    total_cost_usd: round(llm + stt + tts),
    llm_cost_usd: round(llm),
    stt_cost_usd: round(stt),
    tts_cost_usd: round(tts),
    ...(unpriced.length > 0 ? { unpriced } : {})
  }
}
