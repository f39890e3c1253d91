/**
 * Signed, expiring links to a campaign's contacts file (`GET /campaign/{id}/source-download-url`),
 * made as a run's artifact links are (`runs/PublicLinks.ts`): the campaign, its organization and the
 * expiry, signed with HMAC-SHA256 under the server's secret with a purpose of their own (a run's link
 * can never pass as a campaign's), valid `AGENTLINE_PUBLIC_LINK_TTL_SECONDS`. Nothing is stored.
 */
import { Redacted } from "effect"
import * as Crypto from "node:crypto"
import type { PublicLinkSettings } from "../runs/PublicLinks.js"

export interface SourceOf {
  readonly campaignId: number
  readonly organizationId: number
}

const mac = (secret: Redacted.Redacted<string>, payload: string) =>
  Crypto.createHmac("sha256", `campaign-source:${Redacted.value(secret)}`).update(payload).digest("base64url").slice(0, 32)

export const sign = (settings: PublicLinkSettings, source: SourceOf, nowMillis: number): string => {
  const expires = Math.floor(nowMillis / 1000) + settings.ttlSeconds
  const payload = `${source.campaignId}.${source.organizationId}.${expires}`
  return `${payload}.${mac(settings.secret, payload)}`
}

/** Exactly what `sign` makes: campaign, organization, expiry, 32 base64url characters of signature. */
const TOKEN = /^(\d{1,16})\.(\d{1,16})\.(\d{1,16})\.([A-Za-z0-9_-]{32})$/

/** The campaign of a valid, unexpired token; undefined otherwise (anything but the signed form included). */
export const verify = (settings: PublicLinkSettings, token: string, nowMillis: number): SourceOf | undefined => {
  const parts = TOKEN.exec(token)
  if (parts === null) return undefined
  const [, campaign, organization, expires, signature] = parts
  const expected = Buffer.from(mac(settings.secret, `${campaign}.${organization}.${expires}`))
  const given = Buffer.from(signature!)
  if (expected.length !== given.length || !Crypto.timingSafeEqual(expected, given)) return undefined
  if (Number(expires) * 1000 <= nowMillis) return undefined
  return { campaignId: Number(campaign), organizationId: Number(organization) }
}
