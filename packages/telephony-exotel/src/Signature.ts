/**
 * How this server knows a request comes from Exotel for a given account (pure).
 *
 * Exotel signs nothing: it calls the URLs it was given as they are. So the URLs carry the proof, a
 * token only this server (which holds the account's API token) can compute:
 *
 *   key   = HMAC-SHA256(api_token, "agentline/exotel/webhooks/" + account_sid)
 *   token = base64url(HMAC-SHA256(key, the URL's path))
 *
 * - a status callback URL (given with each call) carries its token in the query (`agentline_token`):
 *   Exotel documents no authentication for status callbacks, and a query survives every HTTP client.
 *   The path names the attempt, so a token opens one attempt's callbacks and nothing else;
 * - the inbound URL (pasted into the Voicebot applet of an App Bazaar flow by hand) carries it as the
 *   HTTP Basic password, with the account SID as the user name (`https://<sid>:<token>@host/...`, as
 *   Exotel's applet documentation shows for Basic authentication): the header keeps the secret out of
 *   proxies' access logs, and the user name is the routing key's account id. A query token
 *   (`?AccountSid=<sid>&agentline_token=<token>`) is accepted too, for a flow that cannot send Basic.
 *
 * Neither is the API key or token: a leaked webhook URL lets one forge that URL's webhooks, never
 * place calls or read the account. Changing the API token changes every token (paste the inbound URL
 * again). Tokens are compared in constant time.
 */
import type { WebhookRequest } from "@agentline/telephony-kit/TelephonyProvider"
import * as Crypto from "node:crypto"

/** The credentials the tokens derive from. */
export interface Account {
  readonly account_sid: string
  readonly api_token: string
}

export const TOKEN_PARAMETER = "agentline_token"

const key = (account: Account) =>
  Crypto.createHmac("sha256", account.api_token).update(`agentline/exotel/webhooks/${account.account_sid}`).digest()

const pathOf = (url: string): string => {
  try {
    return new URL(url).pathname
  } catch {
    return ""
  }
}

/** The token of a URL (its path) for an account. */
export const tokenFor = (account: Account, url: string): string =>
  Crypto.createHmac("sha256", key(account)).update(pathOf(url)).digest("base64url")

/** `url` with its token in the query: what a call's `StatusCallback` is given. */
export const withToken = (account: Account, url: string): string => {
  const parsed = new URL(url)
  parsed.searchParams.set(TOKEN_PARAMETER, tokenFor(account, url))
  return parsed.toString()
}

/** The URL to paste into the Voicebot applet: `webhookUrl` with the account SID and its token as Basic credentials. */
export const inboundFlowUrl = (account: Account, webhookUrl: string): string => {
  const parsed = new URL(webhookUrl)
  parsed.username = encodeURIComponent(account.account_sid)
  parsed.password = tokenFor(account, webhookUrl)
  return parsed.toString()
}

const header = (request: WebhookRequest, name: string): string | undefined => {
  for (const [k, v] of Object.entries(request.headers)) if (k.toLowerCase() === name) return v
  return undefined
}

/** The HTTP Basic credentials of a request, if it has readable ones. */
export const basicCredentials = (request: WebhookRequest): { readonly user: string; readonly password: string } | undefined => {
  const value = header(request, "authorization")
  const match = value === undefined ? null : /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(value)
  if (match === null) return undefined
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8")
  const colon = decoded.indexOf(":")
  if (colon < 0) return undefined
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}

const queryToken = (url: string): string | undefined => {
  try {
    return new URL(url).searchParams.get(TOKEN_PARAMETER) ?? undefined
  } catch {
    return undefined
  }
}

const sameInConstantTime = (a: string, b: string): boolean => {
  const left = Crypto.createHash("sha256").update(a).digest()
  const right = Crypto.createHash("sha256").update(b).digest()
  return Crypto.timingSafeEqual(left, right) && a.length === b.length
}

/** Whether the request carries its URL's token for `account` (Basic password or query). */
export const isAuthentic = (account: Account, request: WebhookRequest): boolean => {
  const expected = tokenFor(account, request.url)
  const basic = basicCredentials(request)
  if (basic !== undefined && basic.password !== "") {
    return sameInConstantTime(basic.password, expected) && sameInConstantTime(basic.user, account.account_sid)
  }
  const query = queryToken(request.url)
  return query !== undefined && query !== "" && sameInConstantTime(query, expected)
}
