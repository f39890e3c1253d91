/**
 * How a Cloudonix request is authenticated: Cloudonix signs nothing; it sends the domain's API key in
 * `x-cx-apikey`, which is compared (in constant time) with the configuration's key.
 */
import type { WebhookRequest } from "@agentline/telephony-kit/TelephonyProvider"
import * as Crypto from "node:crypto"

const header = (request: WebhookRequest, name: string): string | undefined => {
  for (const [key, value] of Object.entries(request.headers)) if (key.toLowerCase() === name) return value
  return undefined
}

const equalInConstantTime = (a: string, b: string): boolean => {
  const left = Crypto.createHash("sha256").update(a).digest()
  const right = Crypto.createHash("sha256").update(b).digest()
  return Crypto.timingSafeEqual(left, right) && a.length === b.length
}

/** Whether a webhook carries the domain's API key, as Cloudonix sends it (`x-cx-apikey`). */
export const isAuthentic = (apiKey: string, request: WebhookRequest): boolean => {
  const sent = header(request, "x-cx-apikey")
  return sent !== undefined && sent !== "" && equalInConstantTime(sent, apiKey)
}
