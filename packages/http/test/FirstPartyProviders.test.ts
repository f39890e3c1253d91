/**
 * What the list of first-party providers the server is built with must keep: the eight, each calling
 * (every part of the port), and what was stored decodes to the same config for any credential values.
 * Each adapter's own contract (`runContract`, in its package) checks its field list against its schema.
 */
import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck, Schema } from "effect"
import { firstPartyProviders as made } from "../src/telephony/Providers.js"

const firstPartyProviders = Effect.runSync(made.pipe(Effect.provide(FetchHttpClient.layer)))

/** Any non-blank text for every text-like field: the minimum a config needs, and more. */
const textValues = FastCheck.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim() !== "")

describe("the first-party providers", () => {
  it("are the eight, in name order", () => {
    expect(firstPartyProviders.map((p) => p.name)).toEqual(["ari", "cloudonix", "exotel", "plivo", "telnyx", "twilio", "vobiz", "vonage"])
  })

  it.each(firstPartyProviders.map((p) => [p.name, p] as const))("%s: every field has a label; secrets are typed so forms hide them", (_, p) => {
    for (const f of p.fields) {
      expect(f.label.length).toBeGreaterThan(0)
      // Secrets are typed so a form hides them; multi-line secrets (PEM keys) are text areas; account
      // identifiers (kept like secrets, typed visibly) are text.
      if (f.sensitive) expect(["password", "textarea", "text"]).toContain(f.type)
      if (f.sensitive && f.type === "text") expect(f.label).toMatch(/\b(SID|ID)$/)
    }
  })

  /** The providers whose adapter places and receives calls; the others are configuration only. */
  const calling = new Set(["ari", "cloudonix", "exotel", "plivo", "vobiz", "telnyx", "twilio", "vonage"])

  it.each(firstPartyProviders.filter((p) => !calling.has(p.name)).map((p) => [p.name, p] as const))(
    "%s: is configuration only in this build",
    (_, p) => {
      expect([p.calls, p.webhooks, p.media, p.inbound, p.connect]).toEqual([undefined, undefined, undefined, undefined, undefined])
    }
  )

  it.each(firstPartyProviders.filter((p) => calling.has(p.name)).map((p) => [p.name, p] as const))(
    "%s: places, tracks, answers and receives calls",
    (_, p) => {
      expect([p.calls, p.webhooks, p.media, p.inbound].every((part) => part !== undefined)).toBe(true)
    }
  )

  it.each(firstPartyProviders.filter((p) => p.name !== "ari").map((p) => [p.name, p] as const))(
    "%s: decoding is stable for any credential values, trimmed, and what was stored decodes the same (property)",
    (_, p) => {
      const textFields = p.fields.filter((f) => f.type !== "boolean" && f.type !== "select").map((f) => f.name)
      FastCheck.assert(
        FastCheck.property(FastCheck.array(textValues, { minLength: textFields.length, maxLength: textFields.length }), (values) => {
          const decoded = Schema.decodeUnknownSync(p.configSchema)(Object.fromEntries(textFields.map((name, i) => [name, values[i]])))
          for (const v of Object.values(decoded)) if (typeof v === "string") expect(v).toBe(v.trim())
          const stored = Schema.encodeSync(p.configSchema)(decoded)
          expect(JSON.parse(JSON.stringify(stored))).toEqual(stored)
          expect(Schema.decodeUnknownSync(p.configSchema)(stored)).toEqual(decoded)
        }),
        { numRuns: 50 }
      )
    }
  )
})
