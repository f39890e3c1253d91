/**
 * Address normalization for phone numbers and SIP endpoints: one function serves the phone-number API,
 * one-off calls and the contacts CSV, so the same number is always stored and compared the same way.
 * - `pstn`: telephone numbers, E.164. The `/max` metadata of libphonenumber-js is used (not the default
 *   `/min`) because `/min` only checks lengths; with `/max` numbers that cannot exist are refused.
 * - `sip_uri`: `sip:`/`sips:` URIs (RFC 3261); scheme and host are case-insensitive, the user part is not.
 * - `sip_extension`: short PBX extensions or names (`1001`, `reception`), lower-cased.
 */
import { Data, Either } from "effect"
import {
  type CountryCode,
  getCountries,
  parsePhoneNumberFromString,
  validatePhoneNumberLength
} from "libphonenumber-js/max"

export type AddressType = "pstn" | "sip_uri" | "sip_extension"

export interface NormalizedAddress {
  readonly type: AddressType
  readonly normalized: string
  /** The ISO country of a `pstn` number when its digits name one (null for +800 and the like). */
  readonly countryCode: string | null
}

export class AddressError extends Data.TaggedError("AddressError")<{ readonly message: string }> {}

type Result = Either.Either<NormalizedAddress, AddressError>

const fail = (message: string): Result => Either.left(new AddressError({ message }))
const extension = (value: string): Result =>
  Either.right({ type: "sip_extension", normalized: value.toLowerCase(), countryCode: null })

const COUNTRIES = new Set<string>(getCountries())
const SIP = /^(sips?):(?:([^@\s]+)@)?(\[[0-9a-f:.]+\]|[^\s:;?@[\]]+)(?::(\d{1,5}))?((?:;[^\s?]*)?)((?:\?\S*)?)$/i
const PHONE_LIKE = /^\+?[\d\s().\-/]+$/
// Past 7 digits a bare number is far more likely a phone number missing its country than an extension.
const NUMERIC_EXTENSION = /^\d{1,7}$/
const NAMED_EXTENSION = /^(?=.*[a-z])[a-z0-9][a-z0-9._-]{0,63}$/i
const DEFAULT_PORT: Record<string, number> = { sip: 5060, sips: 5061 }

/** Syntax only (`+`, no leading zero, at most 15 digits); whether the number exists is normalizeAddress's job. */
export const isE164 = (s: string): boolean => /^\+[1-9]\d{1,14}$/.test(s)

const parseCountry = (countryCode: string | null | undefined): Either.Either<CountryCode | undefined, AddressError> => {
  if (countryCode == null) return Either.right(undefined)
  if (!/^[a-z]{2}$/i.test(countryCode)) {
    return Either.left(new AddressError({ message: `country_code must be 2 letters (ISO 3166-1 alpha-2), e.g. US; got '${countryCode}'` }))
  }
  const upper = countryCode.toUpperCase()
  return COUNTRIES.has(upper)
    ? Either.right(upper as CountryCode)
    : Either.left(new AddressError({ message: `'${countryCode}' is not a known country code; use an ISO 3166-1 alpha-2 code such as US, GB or IN` }))
}

const normalizeSip = (value: string): Result => {
  const m = SIP.exec(value)
  if (m === null) return fail(`'${value}' is not a valid SIP URI; expected sip:user@host[:port][;params]`)
  const scheme = m[1]!.toLowerCase()
  const port = m[4] === undefined || Number(m[4]) === DEFAULT_PORT[scheme] ? "" : `:${Number(m[4])}`
  // Header values may be case-sensitive (e.g. Subject), so only the URI parameters are lower-cased.
  const normalized = `${scheme}:${m[2] === undefined ? "" : `${m[2]}@`}${m[3]!.toLowerCase()}${port}${m[5]!.toLowerCase()}${m[6]}`
  return Either.right({ type: "sip_uri", normalized, countryCode: null })
}

const normalizePstn = (text: string, country: CountryCode | undefined, shownAs: string): Result => {
  // `00` is the most common international prefix; libphonenumber only knows it when the country's IDD is 00.
  const international = text.startsWith("+") || text.startsWith("00")
  const input = text.startsWith("00") ? `+${text.slice(2)}` : text
  if (!international && country === undefined) {
    return fail(`PSTN addresses without a leading '+' need a country_code, e.g. US (or write '${shownAs}' as +<country code><number>)`)
  }
  const parsed = parsePhoneNumberFromString(input, country)
  // Some national plans (DE) allow numbers longer than E.164's 15 digits; no carrier would dial them.
  if (parsed !== undefined && parsed.isValid() && isE164(parsed.number)) {
    return Either.right({ type: "pstn", normalized: parsed.number, countryCode: parsed.country ?? null })
  }
  const length = parsed !== undefined && parsed.isValid() ? "TOO_LONG" : validatePhoneNumberLength(input, country)
  const why = length === "TOO_SHORT" ? " (too short)" : length === "TOO_LONG" ? " (too long)" : ""
  const where = international || country === undefined ? "" : ` for ${country}`
  return fail(`'${shownAs}' is not a valid phone number${where}${why}; check the digits and the country`)
}

export const normalizeAddress = (raw: string, countryCode?: string | null): Result => {
  const value = raw.trim()
  if (value === "") {
    return fail("An address is required: a phone number (+14155550100), a SIP URI (sip:user@host) or an extension (1001)")
  }
  const country = parseCountry(countryCode)
  if (Either.isLeft(country)) return Either.left(country.left)
  if (/^sips?:/i.test(value)) return normalizeSip(value)
  // A tel: URI always names a telephone number; its parameters (ext=, phone-context=) have no place in E.164.
  if (/^tel:/i.test(value)) {
    const number = value.slice(4).split(";")[0]!.trim()
    return PHONE_LIKE.test(number) ? normalizePstn(number, country.right, value) : fail(`'${value}' is not a valid tel: URI; expected tel:+<country code><number>`)
  }
  if (PHONE_LIKE.test(value)) {
    const local = NUMERIC_EXTENSION.test(value)
    if (local && country.right === undefined) return extension(value)
    const pstn = normalizePstn(value, country.right, value)
    return Either.isLeft(pstn) && local ? extension(value) : pstn
  }
  if (NAMED_EXTENSION.test(value)) return extension(value)
  return fail(`'${value}' is neither a phone number (+14155550100), a SIP URI (sip:user@host) nor an extension (1001)`)
}

/**
 * A contact's number from a CSV, normalized exactly like a configured address: E.164, a SIP URI or a
 * numeric extension. Named extensions are refused here because spreadsheet filler ("unknown", "tbd")
 * would otherwise be dialed. `defaultCountry` allows national forms when the campaign knows its country.
 */
export const normalizeForCampaign = (raw: string, defaultCountry?: string): Either.Either<string, string> =>
  Either.match(normalizeAddress(raw, defaultCountry ?? null), {
    onLeft: (e) => Either.left(e.message),
    onRight: (a) =>
      a.type === "sip_extension" && !NUMERIC_EXTENSION.test(a.normalized)
        ? Either.left(`'${raw.trim()}' is not a phone number; use E.164 (+14155550100), a SIP URI or a numeric extension`)
        : Either.right(a.normalized)
  })
