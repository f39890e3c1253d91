/**
 * The two JSON Web Tokens of Vonage's Voice API (pure, `node:crypto` only — no JWT library needed):
 *
 * - the **application JWT** that authenticates our requests to the Voice API: RS256, signed with the
 *   application's private key, claims `application_id`, `iat`, `jti` (unique per token) and `exp`;
 * - the **signed webhook** JWT Vonage puts in `Authorization: Bearer …` of the webhooks it sends when
 *   signed callbacks are on: HS256 with the account's signature secret, claims `iss` ("Vonage"), `iat`,
 *   `jti`, `api_key`, `application_id` and `payload_hash`, the hex SHA-256 of the raw body — so the body
 *   is covered too, not only the token.
 */
import * as Crypto from "node:crypto"

const base64url = (data: Buffer | string) => Buffer.from(data).toString("base64url")

const json = (value: unknown) => base64url(JSON.stringify(value))

/** Seconds an application JWT is valid: short, a token is made per request anyway. */
export const APPLICATION_TOKEN_SECONDS = 900

/** How old (or how far in the future, clocks drift) a signed webhook's `iat` may be. */
export const WEBHOOK_MAX_AGE_SECONDS = 300

/** An application JWT for the Voice API, signed RS256 with the application's PEM private key. */
export const applicationToken = (input: { readonly applicationId: string; readonly privateKey: string; readonly nowMillis: number }): string => {
  const iat = Math.floor(input.nowMillis / 1000)
  const signing = `${json({ alg: "RS256", typ: "JWT" })}.${
    json({ application_id: input.applicationId, iat, jti: Crypto.randomUUID(), exp: iat + APPLICATION_TOKEN_SECONDS })
  }`
  // PEM keys pasted into forms often lose their line breaks' carriage returns or gain `\n` escapes.
  const key = Crypto.createPrivateKey(input.privateKey.replace(/\\n/g, "\n"))
  return `${signing}.${base64url(Crypto.sign("sha256", Buffer.from(signing), key))}`
}

/** The parts of a JWT, decoded without checking anything (a malformed token: undefined). */
export const decode = (token: string): { readonly header: Record<string, unknown>; readonly claims: Record<string, unknown>; readonly signing: string; readonly signature: Buffer } | undefined => {
  const parts = token.split(".")
  if (parts.length !== 3) return undefined
  try {
    const header = JSON.parse(Buffer.from(parts[0]!, "base64url").toString("utf8"))
    const claims = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8"))
    if (typeof header !== "object" || header === null || typeof claims !== "object" || claims === null) return undefined
    return { header, claims, signing: `${parts[0]}.${parts[1]}`, signature: Buffer.from(parts[2]!, "base64url") }
  } catch {
    return undefined
  }
}

/** The bearer token of an `Authorization` header, if any. */
export const bearer = (authorization: string | undefined): string | undefined => {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")
  return match?.[1]
}

export const payloadHash = (body: Uint8Array | string) => Crypto.createHash("sha256").update(body).digest("hex")

/** A signed-webhook JWT as Vonage makes it (the fake uses it; tests too). */
export const signWebhook = (input: {
  readonly secret: string
  readonly apiKey: string
  readonly applicationId: string
  readonly body: Uint8Array | string
  readonly nowMillis: number
}): string => {
  const signing = `${json({ alg: "HS256", typ: "JWT" })}.${
    json({
      iat: Math.floor(input.nowMillis / 1000),
      jti: Crypto.randomUUID(),
      iss: "Vonage",
      payload_hash: payloadHash(input.body),
      api_key: input.apiKey,
      application_id: input.applicationId
    })
  }`
  return `${signing}.${base64url(Crypto.createHmac("sha256", input.secret).update(signing).digest())}`
}

/**
 * Whether `token` is a webhook JWT Vonage signed for this account about exactly `body`: HS256 under
 * `secret` (compared in constant time), issued by Vonage for `apiKey` (and the application, when the
 * token names one), fresh, and with the body's hash.
 */
export const verifyWebhook = (input: {
  readonly token: string | undefined
  readonly secret: string
  readonly apiKey: string
  readonly applicationId: string
  readonly body: Uint8Array
  readonly nowMillis: number
}): boolean => {
  if (input.token === undefined || input.secret === "") return false
  const jwt = decode(input.token)
  if (jwt === undefined || jwt.header.alg !== "HS256") return false
  const expected = Crypto.createHmac("sha256", input.secret).update(jwt.signing).digest()
  if (expected.length !== jwt.signature.length || !Crypto.timingSafeEqual(expected, jwt.signature)) return false
  const { claims } = jwt
  if (claims.iss !== undefined && claims.iss !== "Vonage") return false
  if (claims.api_key !== input.apiKey) return false
  if (claims.application_id !== undefined && claims.application_id !== input.applicationId) return false
  const iat = Number(claims.iat)
  if (!Number.isFinite(iat) || Math.abs(input.nowMillis / 1000 - iat) > WEBHOOK_MAX_AGE_SECONDS) return false
  const hash = typeof claims.payload_hash === "string" ? claims.payload_hash.toLowerCase() : undefined
  return hash !== undefined && hash === payloadHash(input.body)
}
