/**
 * Signed, expiring links to a run's artifacts, for sharing without an API key. A link carries the run
 * id and its expiry, signed with HMAC-SHA256 under the server's secret, so nothing is stored and a
 * link cannot be stretched or pointed at another run. The lifetime is `AGENTLINE_PUBLIC_LINK_TTL_SECONDS`
 * (default 3600).
 */
import { Context, Layer, Redacted } from "effect"
import * as Crypto from "node:crypto"

export interface PublicLinkSettings {
  readonly secret: Redacted.Redacted<string>
  readonly ttlSeconds: number
}

export class PublicLinks extends Context.Tag("@agentline/core/PublicLinks")<PublicLinks, PublicLinkSettings>() {
  static layer = (settings: PublicLinkSettings) => Layer.succeed(PublicLinks, settings)
}

const mac = (secret: Redacted.Redacted<string>, payload: string) =>
  Crypto.createHmac("sha256", `public-link:${Redacted.value(secret)}`).update(payload).digest("base64url").slice(0, 32)

export const sign = (settings: PublicLinkSettings, runId: number, nowMillis: number): string => {
  const expires = Math.floor(nowMillis / 1000) + settings.ttlSeconds
  const payload = `${runId}.${expires}`
  return `${payload}.${mac(settings.secret, payload)}`
}

/** Exactly what `sign` makes: run id, expiry, 32 base64url characters of signature; nothing around it. */
const TOKEN = /^(\d{1,16})\.(\d{1,16})\.([A-Za-z0-9_-]{32})$/

/** The run id of a valid, unexpired token; undefined otherwise (anything but the signed form included). */
export const verify = (settings: PublicLinkSettings, token: string, nowMillis: number): number | undefined => {
  const parts = TOKEN.exec(token)
  if (parts === null) return undefined
  const run = parts[1]!
  const expires = parts[2]!
  const signature = parts[3]!
  const expected = Buffer.from(mac(settings.secret, `${run}.${expires}`))
  const given = Buffer.from(signature)
  if (expected.length !== given.length || !Crypto.timingSafeEqual(expected, given)) return undefined
  if (Number(expires) * 1000 <= nowMillis) return undefined
  return Number(run)
}
