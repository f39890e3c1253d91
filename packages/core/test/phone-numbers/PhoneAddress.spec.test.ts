import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck } from "effect"
import { getExampleNumber, getCountries } from "libphonenumber-js/max"
import examples from "libphonenumber-js/mobile/examples"
import { isE164, normalizeAddress, normalizeForCampaign } from "../../src/phone-numbers/PhoneAddress.js"

const ok = (raw: string, country?: string | null) => Either.getOrThrow(normalizeAddress(raw, country))
const fails = (raw: string, country?: string | null) => Either.isLeft(normalizeAddress(raw, country))

describe("normalizeAddress", () => {
  it.each([
    ["+1 (415) 555-0100", null, "+14155550100", "US"],
    ["+1.415.555.0100", null, "+14155550100", "US"],
    ["4155550100", "US", "+14155550100", "US"],
    ["(415) 555-0100", "us", "+14155550100", "US"],
    ["020 7946 0018", "GB", "+442079460018", "GB"],
    ["0044 20 7946 0018", null, "+442079460018", "GB"],
    ["+44 (0)20 7946 0018", null, "+442079460018", "GB"],
    ["08043071383", "IN", "+918043071383", "IN"],
    ["030 123456", "DE", "+4930123456", "DE"],
    ["tel:+14155550100", null, "+14155550100", "US"]
  ])("pstn %s (%s) → %s", (raw, country, normalized, iso) => {
    expect(ok(raw, country)).toEqual({ type: "pstn", normalized, countryCode: iso })
  })

  it.each([
    ["sip:alice@example.com", "sip:alice@example.com"],
    ["SIP:Alice@Example.COM:5060", "sip:Alice@example.com"],
    ["sips:bob@host.example:5061", "sips:bob@host.example"],
    ["sip:bob@host.example:5080", "sip:bob@host.example:5080"],
    ["sips:bob@host.example:5060", "sips:bob@host.example:5060"],
    ["sip:carol@PBX.local;Transport=TCP", "sip:carol@pbx.local;transport=tcp"],
    ["sip:pbx.local", "sip:pbx.local"]
  ])("sip uri %s → %s", (raw, normalized) => {
    expect(ok(raw)).toEqual({ type: "sip_uri", normalized, countryCode: null })
  })

  it.each([["1001", "1001"], ["Reception", "reception"], ["ext-12", "ext-12"]])("extension %s → %s", (raw, normalized) => {
    expect(ok(raw)).toEqual({ type: "sip_extension", normalized, countryCode: null })
  })

  it("refuses what cannot be dialed, with a message saying what to do", () => {
    expect(fails("")).toBe(true)
    expect(fails("   ")).toBe(true)
    expect(fails("+1555")).toBe(true)
    expect(fails("hello world")).toBe(true)
    expect(fails("+14155550100", "XX")).toBe(true)
    expect(fails("sip:")).toBe(true)
    const noCountry = normalizeAddress("4155550100")
    expect(Either.isLeft(noCountry) && noCountry.left.message).toContain("country_code")
  })

  it("isE164", () => {
    expect(isE164("+14155550100")).toBe(true)
    expect(isE164("14155550100")).toBe(false)
    expect(isE164("+0123")).toBe(false)
  })

  it("normalizeForCampaign accepts numbers, SIP URIs and numeric extensions only", () => {
    expect(normalizeForCampaign(" +1 415 555 0100 ")).toEqual(Either.right("+14155550100"))
    expect(normalizeForCampaign("sip:a@b.c")).toEqual(Either.right("sip:a@b.c"))
    expect(normalizeForCampaign("1001")).toEqual(Either.right("1001"))
    expect(Either.isLeft(normalizeForCampaign("not-a-number"))).toBe(true)
  })

  it("every example number of every country survives a round trip (E.164 in, the same E.164 out)", () => {
    let checked = 0
    for (const country of getCountries()) {
      const example = getExampleNumber(country, examples)
      if (!example) continue
      const e164 = example.number
      const result = normalizeAddress(e164)
      expect(Either.isRight(result), `${country} ${e164}`).toBe(true)
      expect(Either.getOrThrow(result).normalized).toBe(e164)
      expect(Either.getOrThrow(normalizeAddress(example.formatNational(), country)).normalized).toBe(e164)
      checked++
    }
    expect(checked).toBeGreaterThan(200)
  })

  it("normalization is idempotent for any input it accepts (property)", () => {
    const separators = FastCheck.constantFrom("", " ", "-", ".", "(", ")")
    const phoneLike = FastCheck.tuple(FastCheck.boolean(), FastCheck.array(FastCheck.tuple(FastCheck.integer({ min: 0, max: 9 }), separators), { minLength: 3, maxLength: 15 }))
      .map(([plus, parts]) => (plus ? "+" : "") + parts.map(([d, s]) => `${d}${s}`).join(""))
    const sip = FastCheck.tuple(FastCheck.constantFrom("sip", "SIP", "sips"), FastCheck.stringMatching(/^[A-Za-z0-9]{1,8}$/), FastCheck.stringMatching(/^[A-Za-z]{1,8}\.[A-Za-z]{2,3}$/), FastCheck.constantFrom("", ":5060", ":5061", ":7000"))
      .map(([scheme, user, host, port]) => `${scheme}:${user}@${host}${port}`)
    const extension = FastCheck.stringMatching(/^[A-Za-z][A-Za-z0-9_-]{0,10}$/)
    const country = FastCheck.constantFrom(null, "US", "GB", "IN", "DE", "FR", "BR")
    FastCheck.assert(FastCheck.property(FastCheck.oneof(phoneLike, sip, extension), country, (raw, cc) => {
      const first = normalizeAddress(raw, cc)
      if (Either.isLeft(first)) return
      const again = normalizeAddress(first.right.normalized, cc)
      expect(again).toEqual(first)
    }), { numRuns: 500 })
  })
})
