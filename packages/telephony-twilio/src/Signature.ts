/**
 * Twilio's request signature (`X-Twilio-Signature`): base64 HMAC-SHA1, keyed with the account's auth
 * token, over the full URL Twilio requested (query included) followed by every POST parameter sorted
 * by name, each as name then value. A parameter sent several times contributes each value, sorted.
 *
 * Twilio computes the URL inconsistently with and without the default port (`:443`, `:80`), so a
 * signature over either form is accepted, as Twilio's own helper library does. Comparison is in
 * constant time.
 */
import * as Crypto from "node:crypto"

/** Form parameters as they arrived, in order; a name may repeat. */
export type FormParams = ReadonlyArray<readonly [string, string]>

export const formParams = (body: Uint8Array | string): FormParams =>
  [...new URLSearchParams(typeof body === "string" ? body : new TextDecoder().decode(body)).entries()]

/** The string Twilio signs for `url` and `params`. */
export const signedData = (url: string, params: FormParams): string => {
  const byName = new Map<string, Array<string>>()
  for (const [name, value] of params) byName.set(name, [...(byName.get(name) ?? []), value])
  let data = url
  for (const name of [...byName.keys()].sort()) {
    for (const value of [...new Set(byName.get(name))].sort()) data += name + value
  }
  return data
}

export const sign = (authToken: string, url: string, params: FormParams = []): string =>
  Crypto.createHmac("sha1", authToken).update(Buffer.from(signedData(url, params), "utf8")).digest("base64")

/** `url` with and without its scheme's default port, the way Twilio may have signed it. */
const portVariants = (url: string): ReadonlyArray<string> => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return [url]
  }
  const defaultPort = parsed.protocol === "https:" || parsed.protocol === "wss:" ? "443" : "80"
  if (parsed.port !== "" && parsed.port !== defaultPort) return [url]
  const authority = `${parsed.username !== "" ? `${parsed.username}${parsed.password !== "" ? `:${parsed.password}` : ""}@` : ""}`
  const rest = `${parsed.pathname}${parsed.search}${parsed.hash}`
  const withPort = `${parsed.protocol}//${authority}${parsed.hostname}:${defaultPort}${rest}`
  const withoutPort = `${parsed.protocol}//${authority}${parsed.hostname}${rest}`
  return [url, withPort, withoutPort]
}

const equalInConstantTime = (a: string, b: string): boolean => {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && Crypto.timingSafeEqual(left, right)
}

/** Whether `signature` is Twilio's signature of this request under `authToken`. */
export const isValid = (authToken: string, signature: string | undefined, url: string, params: FormParams): boolean =>
  signature !== undefined && signature !== "" &&
  portVariants(url).some((candidate) => equalInConstantTime(sign(authToken, candidate, params), signature))
