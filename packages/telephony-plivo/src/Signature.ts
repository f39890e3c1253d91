/**
 * Callback signatures of Plivo-compatible carriers: base64(HMAC-SHA256(auth token, signed string +
 * "." + nonce)), the nonce in a companion header, several comma-separated signatures allowed.
 *
 * - Plivo V3 (`X-Plivo-Signature-V3`) signs the URL and the parameters (plivo-node
 *   `lib/utils/v3Security.js`, plivo-python `signature_v3.py`): `scheme://host[:port]/path`, then for
 *   a POST with parameters `?` + the query parameters sorted (`k=v&k=v`, decoded) + (`.` when there
 *   were query parameters) + every POST parameter sorted by name as `namevalue`; without POST
 *   parameters `?query` only when there is a query. A GET merges the parameters into the query.
 * - Vobiz V3 (`X-Vobiz-Signature-V3`) signs only the URL without its query (docs.vobiz.ai
 *   "Validating callbacks"); its V2 joins the nonce without the dot.
 *
 * The URL must be the one the carrier called, exactly as it was configured there (no normalization:
 * a default port written in the configured URL is signed with it).
 */
import * as Crypto from "node:crypto"

/** Form parameters, each name with its values in arrival order. */
export type Params = ReadonlyArray<readonly [string, string]>

export interface Scheme {
  /** Header names, lower case: candidates in order, each with the nonce header it uses. */
  readonly headers: ReadonlyArray<{ readonly signature: string; readonly nonce: string; readonly separator: "." | "" }>
  /** The string the carrier signs (before the separator and the nonce). */
  readonly signedString: (method: string, url: string, params: Params) => string
}

const splitUrl = (url: string) => {
  const withoutFragment = url.split("#")[0]!
  const at = withoutFragment.indexOf("?")
  return at < 0 ? { base: withoutFragment, query: "" } : { base: withoutFragment.slice(0, at), query: withoutFragment.slice(at + 1) }
}

/** Groups values by name: names sorted, each name's values sorted (code-point order, as Python's `sorted`). */
const grouped = (params: Params): Array<readonly [string, Array<string>]> => {
  const byName = new Map<string, Array<string>>()
  for (const [name, value] of params) byName.set(name, [...(byName.get(name) ?? []), value])
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
  return [...byName.entries()].sort(([a], [b]) => order(a, b)).map(([name, values]) => [name, values.sort(order)] as const)
}

const queryParams = (query: string): Params => [...new URLSearchParams(query).entries()]

const sortedQuery = (params: Params) => grouped(params).flatMap(([name, values]) => values.map((v) => `${name}=${v}`)).join("&")

const sortedBody = (params: Params) => grouped(params).flatMap(([name, values]) => values.map((v) => `${name}${v}`)).join("")

/** What Plivo V3 signs for a request to `url` with form `params`. */
export const plivoSignedString = (method: string, url: string, params: Params): string => {
  const { base, query } = splitUrl(url)
  if (method.toUpperCase() === "GET") {
    const merged = sortedQuery([...queryParams(query), ...params])
    return merged === "" ? base : `${base}?${merged}`
  }
  const sorted = sortedQuery(queryParams(query))
  if (params.length === 0) return sorted === "" ? base : `${base}?${sorted}`
  return `${base}?${sorted}${sorted === "" ? "" : "."}${sortedBody(params)}`
}

/** What Vobiz signs: the URL without its query. */
export const vobizSignedString = (_method: string, url: string): string => splitUrl(url).base

export const plivoV3: Scheme = {
  headers: [{ signature: "x-plivo-signature-v3", nonce: "x-plivo-signature-v3-nonce", separator: "." }],
  signedString: plivoSignedString
}

export const vobiz: Scheme = {
  headers: [
    { signature: "x-vobiz-signature-v3", nonce: "x-vobiz-signature-v3-nonce", separator: "." },
    { signature: "x-vobiz-signature-v2", nonce: "x-vobiz-signature-v2-nonce", separator: "" }
  ],
  signedString: vobizSignedString
}

export const hmac = (token: string, signed: string): string => Crypto.createHmac("sha256", token).update(signed, "utf8").digest("base64")

/** The signature headers a carrier sends for a request (what the fakes send; tests use it too). */
export const sign = (
  scheme: Scheme,
  token: string,
  request: { readonly method: string; readonly url: string; readonly params: Params },
  nonce: string
): Record<string, string> => {
  const headers: Record<string, string> = {}
  const signed = scheme.signedString(request.method, request.url, request.params)
  for (const h of scheme.headers) {
    headers[h.signature] = hmac(token, `${signed}${h.separator}${nonce}`)
    headers[h.nonce] = nonce
  }
  return headers
}

const sameText = (a: string, b: string) => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && Crypto.timingSafeEqual(x, y)
}

/**
 * Whether a request carries a valid signature under `token`. The first signature header present
 * decides (a carrier sends all of its schemes; a forger cannot pick a weaker one that is absent).
 */
export const verify = (
  scheme: Scheme,
  token: string,
  request: {
    readonly method: string
    readonly url: string
    readonly params: Params
    readonly header: (name: string) => string | undefined
  }
): boolean => {
  if (token === "") return false
  for (const h of scheme.headers) {
    const given = request.header(h.signature)
    if (given === undefined || given.trim() === "") continue
    const nonce = request.header(h.nonce)
    if (nonce === undefined || nonce === "") return false
    const expected = hmac(token, `${scheme.signedString(request.method, request.url, request.params)}${h.separator}${nonce}`)
    return given.split(",").some((candidate) => sameText(candidate.trim(), expected))
  }
  return false
}
