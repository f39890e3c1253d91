/**
 * The dashboard's login session in cookies: `agentline_session` (the session token; HttpOnly, so a
 * script injected into the page cannot steal it) and `agentline_csrf` (readable: the dashboard repeats
 * it in `X-CSRF-Token` on writes). Both are `SameSite=Strict; Path=/`, `Secure` when the site is
 * served over https, and expire with the session.
 *
 * The CSRF token is derived from the session token with the server's secret (HMAC), so a token planted
 * in the cookie jar by someone else (a sibling subdomain can set cookies) does not match a session it
 * was not made for: a write needs header = cookie = HMAC(secret, session token).
 */
import { CSRF_COOKIE, SESSION_COOKIE } from "@agentline/api/Authentication"
import { HttpApp, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Redacted } from "effect"
import * as NodeCrypto from "node:crypto"

/**
 * Whether the browser reached the site over https: the configured public URL says so, or the request
 * does (a TLS-terminating proxy's `X-Forwarded-Proto`). The header needs no trust here: a client
 * that lies about it only makes its own cookie `Secure`, which an http page then cannot use.
 */
export const isHttps = (request: HttpServerRequest.HttpServerRequest, publicUrl: string): boolean => {
  if (publicUrl.startsWith("https:")) return true
  if (request.url.startsWith("https:")) return true
  const forwarded = request.headers["x-forwarded-proto"]
  return typeof forwarded === "string" && forwarded.split(",")[0]?.trim().toLowerCase() === "https"
}

export const csrfTokenFor = (secretKey: Redacted.Redacted<string>, sessionToken: string): string =>
  NodeCrypto.createHmac("sha256", Redacted.value(secretKey)).update(`agentline-csrf:${sessionToken}`).digest("base64url")

/** Equal strings, compared in constant time (digests first, so the length does not show either). */
export const safeEqual = (a: string, b: string): boolean =>
  NodeCrypto.timingSafeEqual(
    NodeCrypto.createHash("sha256").update(a).digest(),
    NodeCrypto.createHash("sha256").update(b).digest()
  )

/** Reads one cookie of the request (the platform parses the Cookie header). */
export const cookieOf = (request: HttpServerRequest.HttpServerRequest, name: string): string | undefined => {
  const value = request.cookies[name]
  return value === undefined || value === "" ? undefined : value
}

/** Whether a cookie-authenticated request of this method must carry the CSRF token. */
export const needsCsrfToken = (method: string): boolean => method !== "GET" && method !== "HEAD"

/** Adds the session and CSRF cookies to the response the handler is building (the JSON body is unchanged). */
export const setSessionCookies = (options: {
  readonly token: string
  readonly expiresAt: string
  readonly secure: boolean
  readonly secretKey: Redacted.Redacted<string>
}) => {
  const expires = new Date(options.expiresAt)
  const common = { path: "/", sameSite: "strict", secure: options.secure, expires } as const
  return HttpApp.appendPreResponseHandler((_request, response) =>
    Effect.orDie(HttpServerResponse.setCookies(response, [
      [SESSION_COOKIE, options.token, { ...common, httpOnly: true }],
      [CSRF_COOKIE, csrfTokenFor(options.secretKey, options.token), { ...common, httpOnly: false }]
    ]))
  )
}

/** Expires both cookies (logout). */
export const clearSessionCookies = (secure: boolean) => {
  const common = { path: "/", sameSite: "strict", secure, expires: new Date(0), maxAge: 0 } as const
  return HttpApp.appendPreResponseHandler((_request, response) =>
    Effect.orDie(HttpServerResponse.setCookies(response, [
      [SESSION_COOKIE, "", { ...common, httpOnly: true }],
      [CSRF_COOKIE, "", { ...common, httpOnly: false }]
    ]))
  )
}
