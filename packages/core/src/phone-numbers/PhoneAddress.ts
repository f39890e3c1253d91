/**
 * Address normalization for phone numbers and SIP endpoints, one function for the phone-number API and
 * the contacts CSV. Three kinds:
 * - `pstn`: telephone numbers, normalized to E.164 by libphonenumber-js (full metadata, so invalid
 *   numbers are refused, not just implausible lengths); national forms need a `country_code`.
 * - `sip_uri`: `sip:`/`sips:` URIs; scheme and host lower-cased, the user part kept as written,
 *   default ports (5060 for sip, 5061 for sips) dropped, URI parameters lower-cased.
 * - `sip_extension`: short PBX extensions or names (`1001`, `reception`), lower-cased.
 */
import { Either } from "effect"
import { type CountryCode, getCountries, parsePhoneNumberFromString } from "libphonenumber-js/max"

export type AddressType = "pstn" | "sip_uri" | "sip_extension"

export interface NormalizedAddress {
  readonly type: AddressType
  readonly normalized: string
  /** The ISO country of a `pstn` number when known. */
  readonly countryCode: string | null
}

export class AddressError {
  readonly _tag = "AddressError"
  constructor(readonly message: string) {}
}

const COUNTRIES = new Set<string>(getCountries())
const SIP = /^(sips?):([^@;?]+@)?([^:;?]+)(?::(\d+))?(;[^?]*)?(\?.*)?$/i
/** Up to 7 digits, or a short name: what a PBX calls an extension. */
const EXTENSION = /^(?:\d{1,7}|[a-z][a-z0-9._-]{0,63})$/i
const PHONE_LIKE = /^\+?[\d\s().\-/]+$/

export const isE164 = (s: string): boolean => /^\+[1-9]\d{6,14}$/.test(s)

const normalizeSip = (raw: string): Either.Either<NormalizedAddress, AddressError> => {
  const match = SIP.exec(raw)
  if (!match) return Either.left(new AddressError(`'${raw}' is not a valid SIP URI (expected sip:user@host[:port])`))
  const scheme = match[1]!.toLowerCase()
  const user = match[2] ?? ""
  const host = match[3]!.toLowerCase()
  const port = match[4]
  const keepPort = port !== undefined && !((scheme === "sip" && port === "5060") || (scheme === "sips" && port === "5061"))
  const params = (match[5] ?? "").toLowerCase()
  const headers = match[6] ?? ""
  return Either.right({
    type: "sip_uri",
    normalized: `${scheme}:${user}${host}${keepPort ? `:${port}` : ""}${params}${headers}`,
    countryCode: null
  })
}

export const normalizeAddress = (
  raw: string,
  countryCode?: string | null
): Either.Either<NormalizedAddress, AddressError> => {
  const value = raw.trim()
  if (value === "") return Either.left(new AddressError("address must not be empty"))
  const country = countryCode == null || countryCode === "" ? undefined : countryCode.toUpperCase()
  if (country !== undefined && !COUNTRIES.has(country)) {
    return Either.left(new AddressError(`'${countryCode}' is not a known ISO 3166-1 country code (e.g. US, GB, IN)`))
  }
  if (/^sips?:/i.test(value)) return normalizeSip(value)
  const tel = /^tel:/i.test(value) ? value.slice(4).split(";")[0]! : value
  if (PHONE_LIKE.test(tel)) {
    const digits = tel.replace(/\D/g, "")
    const international = tel.startsWith("+") || tel.startsWith("00")
    // Short all-digit strings without a country are PBX extensions, not phone numbers.
    if (!international && country === undefined && EXTENSION.test(tel)) {
      return Either.right({ type: "sip_extension", normalized: tel, countryCode: null })
    }
    if (!international && country === undefined) {
      return Either.left(new AddressError(
        `'${raw}' has no country: write it in international form (+<country code><number>) or give a country_code, e.g. US`
      ))
    }
    const text = tel.startsWith("00") ? `+${digits.slice(2)}` : tel
    const parsed = parsePhoneNumberFromString(text, country as CountryCode | undefined)
    if (parsed === undefined || !parsed.isValid()) {
      return Either.left(new AddressError(`'${raw}' is not a valid phone number${country ? ` for ${country}` : ""}`))
    }
    return Either.right({ type: "pstn", normalized: parsed.number, countryCode: parsed.country ?? country ?? null })
  }
  if (EXTENSION.test(value)) return Either.right({ type: "sip_extension", normalized: value.toLowerCase(), countryCode: null })
  return Either.left(new AddressError(`'${raw}' is neither a phone number, a SIP URI nor an extension`))
}

/**
 * A contact's number from a CSV: E.164 or a SIP URI or extension, normalized the same way.
 * `defaultCountry` allows national forms when the campaign knows its country.
 */
export const normalizeForCampaign = (raw: string, defaultCountry?: string): Either.Either<string, string> =>
  Either.match(normalizeAddress(raw, defaultCountry ?? null), {
    onLeft: (e) => Either.left(e.message),
    // A name-like "extension" in a contacts file is almost always a data error; numeric ones are PBX extensions.
    onRight: (a) =>
      a.type === "sip_extension" && !/^\d+$/.test(a.normalized)
        ? Either.left(`'${raw}' is not a phone number`)
        : Either.right(a.normalized)
  })
