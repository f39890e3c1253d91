import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck } from "effect"
import { type CountryCode, getCountries, getCountryCallingCode, getExampleNumber } from "libphonenumber-js/max"
import examples from "libphonenumber-js/mobile/examples"
import { isE164, normalizeAddress, normalizeForCampaign } from "../../src/phone-numbers/PhoneAddress.js"

const right = (raw: string, country?: string | null) => {
  const result = normalizeAddress(raw, country)
  if (Either.isLeft(result)) throw new Error(`expected ${raw} (${country}) to normalize: ${result.left.message}`)
  return result.right
}
const message = (raw: string, country?: string | null) => {
  const result = normalizeAddress(raw, country)
  if (Either.isRight(result)) throw new Error(`expected ${raw} (${country}) to fail, got ${result.right.normalized}`)
  return result.left.message
}

describe("normalizeAddress: pstn", () => {
  it.each<[string, string | null, string, string | null]>([
    ["+1 (415) 555-0100", null, "+14155550100", "US"],
    ["  +1 415 555 0100  ", null, "+14155550100", "US"],
    ["(415) 555-0100", "US", "+14155550100", "US"],
    ["415.555.0100", "us", "+14155550100", "US"],
    ["+1.415.555.0100", null, "+14155550100", "US"],
    ["1-415-555-0100", "US", "+14155550100", "US"],
    ["+1 800 555 0100", null, "+18005550100", "US"],
    ["011 44 20 7946 0018", "US", "+442079460018", "GB"],
    ["020 7946 0018", "GB", "+442079460018", "GB"],
    ["020-7946-0018", "gb", "+442079460018", "GB"],
    ["+44 (0)20 7946 0018", null, "+442079460018", "GB"],
    ["0044 20 7946 0018", null, "+442079460018", "GB"],
    ["0044 20 7946 0018", "US", "+442079460018", "GB"],
    ["+442079460018", "US", "+442079460018", "GB"],
    ["08043071383", "IN", "+918043071383", "IN"],
    ["080 4307 1383", "IN", "+918043071383", "IN"],
    ["+91 80 4307 1383", null, "+918043071383", "IN"],
    ["030 12345678", "DE", "+493012345678", "DE"],
    ["030 123456", "DE", "+4930123456", "DE"],
    ["+49 (30) 1234-5678", null, "+493012345678", "DE"],
    ["0049 30 12345678", null, "+493012345678", "DE"],
    ["+800 1234 5678", "GB", "+80012345678", null],
    ["tel:+14155550100", null, "+14155550100", "US"],
    ["TEL:+1-415-555-0100;ext=12", null, "+14155550100", "US"],
    ["tel:020 7946 0018", "GB", "+442079460018", "GB"]
  ])("%s (%s) -> %s", (raw, country, normalized, iso) => {
    expect(right(raw, country)).toEqual({ type: "pstn", normalized, countryCode: iso })
  })
})

describe("normalizeAddress: sip_uri", () => {
  it.each([
    ["sip:alice@example.com", "sip:alice@example.com"],
    ["sip:Alice@Example.COM", "sip:Alice@example.com"],
    ["SIP:alice@example.com:5060", "sip:alice@example.com"],
    ["Sips:Bob@PBX.Example.com:5061;Transport=TLS", "sips:Bob@pbx.example.com;transport=tls"],
    ["sip:bob@example.com:5061", "sip:bob@example.com:5061"],
    ["sips:bob@example.com:5060", "sips:bob@example.com:5060"],
    ["sip:bob@example.com:05080", "sip:bob@example.com:5080"],
    ["sip:+14155550100@10.0.0.5:5080;User=Phone", "sip:+14155550100@10.0.0.5:5080;user=phone"],
    ["sip:PBX.local", "sip:pbx.local"],
    ["sip:alice@[2001:DB8::1]:5060", "sip:alice@[2001:db8::1]"],
    ["sip:alice@example.com;Transport=UDP?Subject=Hello", "sip:alice@example.com;transport=udp?Subject=Hello"],
    ["  sip:alice@example.com  ", "sip:alice@example.com"]
  ])("%s -> %s", (raw, normalized) => {
    expect(right(raw)).toEqual({ type: "sip_uri", normalized, countryCode: null })
  })

  it.each(["sip:", "sip:alice@", "sip:al ice@example.com", "sip:alice@example.com:port", "sip:a@b@c", "sips:@host"])(
    "refuses the malformed URI %s",
    (raw) => {
      expect(message(raw)).toContain("not a valid SIP URI")
    }
  )
})

describe("normalizeAddress: sip_extension", () => {
  it.each<[string, string | null, string]>([
    ["1001", null, "1001"],
    ["0", null, "0"],
    ["1234567", null, "1234567"],
    ["007", null, "007"],
    // A short number that is not a valid number of the given country is still a PBX extension.
    ["1001", "US", "1001"],
    ["1001", "GB", "1001"],
    ["Reception", null, "reception"],
    ["ext-12", null, "ext-12"],
    ["Sales.Team_2", "DE", "sales.team_2"],
    ["12B", null, "12b"]
  ])("%s (%s) -> %s", (raw, country, normalized) => {
    expect(right(raw, country)).toEqual({ type: "sip_extension", normalized, countryCode: null })
  })
})

describe("normalizeAddress: errors say what to do", () => {
  it.each<[string, string | null, string]>([
    ["", null, "An address is required"],
    ["   ", "US", "An address is required"],
    ["hello world", null, "neither a phone number"],
    ["alice@example.com", null, "neither a phone number"],
    ["+1 415 abc 0100", null, "neither a phone number"],
    ["!!!", null, "neither a phone number"],
    ["+44 20", null, "not a valid phone number (too short)"],
    ["+1555", null, "not a valid phone number (too short)"],
    ["+1 415 555 0100 1234 56", null, "not a valid phone number (too long)"],
    ["020 79", "GB", "not a valid phone number for GB (too short)"],
    ["2125550100", "GB", "not a valid phone number for GB"],
    ["+1 555 555 0100", null, "not a valid phone number"],
    ["20100000000000", "DE", "not a valid phone number for DE (too long)"],
    ["020 7946 0018", null, "need a country_code, e.g. US"],
    ["4155550100", null, "need a country_code, e.g. US"],
    ["12345678", null, "need a country_code, e.g. US"],
    ["tel:4155550100", null, "need a country_code, e.g. US"],
    ["tel:abc", null, "not a valid tel: URI"],
    ["020 7946 0018", "GBR", "country_code must be 2 letters"],
    ["020 7946 0018", "", "country_code must be 2 letters"],
    ["1001", "U1", "country_code must be 2 letters"],
    ["+14155550100", "ZZ", "'ZZ' is not a known country code"],
    ["sip:alice@example.com", "XX", "'XX' is not a known country code"]
  ])("%j (%s): %s", (raw, country, expected) => {
    expect(message(raw, country)).toContain(expected)
  })

  it("names the offending input in the message", () => {
    expect(message("2125550100", "GB")).toBe(
      "'2125550100' is not a valid phone number for GB; check the digits and the country"
    )
  })
})

describe("isE164", () => {
  it.each<[string, boolean]>([
    ["+14155550100", true],
    ["+442079460018", true],
    ["+123456789012345", true],
    ["+1234567890123456", false],
    ["14155550100", false],
    ["+0123456", false],
    ["+1 415 555 0100", false],
    ["+", false],
    ["", false]
  ])("%s -> %s", (s, expected) => {
    expect(isE164(s)).toBe(expected)
  })
})

describe("normalizeForCampaign", () => {
  it.each<[string, string | undefined, string]>([
    [" +1 (415) 555-0100 ", undefined, "+14155550100"],
    ["020 7946 0018", "GB", "+442079460018"],
    ["SIP:Alice@Example.com:5060", undefined, "sip:Alice@example.com"],
    ["1001", undefined, "1001"]
  ])("%s (%s) -> %s", (raw, country, expected) => {
    expect(normalizeForCampaign(raw, country)).toEqual(Either.right(expected))
  })

  it("gives the normalizer's reason, and refuses named extensions (spreadsheet filler)", () => {
    expect(normalizeForCampaign("020 7946 0018")).toEqual(Either.left(
      "PSTN addresses without a leading '+' need a country_code, e.g. US (or write '020 7946 0018' as +<country code><number>)"
    ))
    expect(normalizeForCampaign("unknown")).toEqual(Either.left(
      "'unknown' is not a phone number; use E.164 (+14155550100), a SIP URI or a numeric extension"
    ))
    expect(Either.isLeft(normalizeForCampaign(""))).toBe(true)
  })
})

const exampleNumbers = getCountries().flatMap((country) => {
  const example = getExampleNumber(country, examples)
  return example === undefined ? [] : [{ country, example }]
})

describe("properties", () => {
  const digit = FastCheck.integer({ min: 0, max: 9 }).map(String)
  const separator = FastCheck.constantFrom("", "", " ", "-", ".")
  const phoneLike = FastCheck.tuple(
    FastCheck.constantFrom("", "+", "00"),
    FastCheck.array(FastCheck.array(digit, { minLength: 1, maxLength: 4 }).map((d) => d.join("")), { minLength: 1, maxLength: 5 }),
    FastCheck.array(separator, { minLength: 5, maxLength: 5 }),
    FastCheck.boolean()
  ).map(([prefix, groups, seps, parens]) =>
    prefix + groups.map((g, i) => (i === 0 && parens && groups.length > 1 ? `(${g})` : g) + (seps[i] ?? "")).join("").trim()
  )
  // Random digits are rarely valid numbers, so real numbers are also written with random separators.
  const separatedNumber = FastCheck.tuple(
    FastCheck.constantFrom(...exampleNumbers),
    FastCheck.constantFrom("+", "00"),
    FastCheck.array(separator, { minLength: 20, maxLength: 20 })
  ).map(([{ example }, prefix, seps]) => prefix + [...example.number.slice(1)].map((d, i) => d + seps[i]).join("").trim())
  const sipUri = FastCheck.tuple(
    FastCheck.constantFrom("sip", "SIP", "sips", "Sips"),
    FastCheck.option(FastCheck.stringMatching(/^[A-Za-z0-9+._-]{1,10}$/), { nil: undefined }),
    FastCheck.array(FastCheck.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,8}$/), { minLength: 1, maxLength: 3 }),
    FastCheck.option(FastCheck.oneof(FastCheck.constantFrom(5060, 5061), FastCheck.integer({ min: 1, max: 65535 })), { nil: undefined }),
    FastCheck.constantFrom("", ";Transport=TCP", ";user=PHONE;lr")
  ).map(([scheme, user, labels, port, params]) =>
    `${scheme}:${user === undefined ? "" : `${user}@`}${labels.join(".")}${port === undefined ? "" : `:${port}`}${params}`
  )
  const extension = FastCheck.oneof(
    FastCheck.stringMatching(/^\d{1,7}$/),
    FastCheck.stringMatching(/^[A-Za-z][A-Za-z0-9._-]{0,12}$/)
  )
  const country = FastCheck.constantFrom(null, "US", "GB", "IN", "DE", "us", "gb")

  it("normalization is idempotent for every input it accepts, and pstn results are E.164", () => {
    const seen = { pstn: 0, sip_uri: 0, sip_extension: 0 }
    FastCheck.assert(
      FastCheck.property(FastCheck.oneof(phoneLike, separatedNumber, sipUri, extension), country, (raw, cc) => {
        const first = normalizeAddress(raw, cc)
        if (Either.isLeft(first)) return
        seen[first.right.type]++
        expect(normalizeAddress(first.right.normalized, cc)).toEqual(first)
        if (first.right.type === "pstn") expect(isE164(first.right.normalized)).toBe(true)
        else expect(first.right.countryCode).toBeNull()
      }),
      { numRuns: 2000 }
    )
    // Guards against a generator that only ever produces rejected input, which would make the property vacuous.
    expect(seen.pstn).toBeGreaterThan(200)
    expect(seen.sip_uri).toBeGreaterThan(200)
    expect(seen.sip_extension).toBeGreaterThan(200)
  })

  it("every country's example number round-trips: E.164 in, the same E.164 out, as pstn", () => {
    expect(exampleNumbers.length).toBeGreaterThan(200)
    for (const { example } of exampleNumbers) {
      const address = right(example.number)
      expect(address.type).toBe("pstn")
      expect(address.normalized).toBe(example.number)
      // Countries sharing a calling code (FI/AX, GB/JE, US/CA...) may resolve to the sibling; the code must agree.
      expect(getCountryCallingCode(address.countryCode as CountryCode)).toBe(example.countryCallingCode)
    }
  })

  it("valid numbers written in any format, with their country, normalize to their E.164", () => {
    const formats = ["E.164", "INTERNATIONAL", "NATIONAL", "RFC3966", "IDD"] as const
    FastCheck.assert(
      FastCheck.property(FastCheck.constantFrom(...exampleNumbers), FastCheck.constantFrom(...formats), ({ country, example }, format) => {
        const written = format === "IDD" ? example.format("IDD", { fromCountry: "GB" as CountryCode }) : example.format(format)
        if (written === undefined) return
        expect(right(written, country.toLowerCase())).toMatchObject({ type: "pstn", normalized: example.number })
      }),
      { numRuns: 1000 }
    )
  })
})
