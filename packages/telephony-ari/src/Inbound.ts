/**
 * Incoming ARI calls. Asterisk has no voice webhook: the customer's dialplan sends a call to
 * `Stasis(<app>)`, and the application hears it as a `StasisStart` (channel state `Ring`, no
 * `attempt_id` argument) on its events WebSocket. The adapter hands that event to the server's inbound
 * route in-process (`ConnectContext.inbound`) as the request `webhooks.parseInbound` reads:
 * `{"account_id": <endpoint#user>, "event": <StasisStart>}`, authenticated by an HMAC-SHA256 of the
 * body keyed with the ARI password (`x-agentline-ari-signature`, hex), which only a holder of the
 * configuration's credentials can make. The same request posted over HTTP without that MAC, or with
 * another key, is refused (401): ARI itself never posts anything.
 *
 * The called number is the channel's `dialplan.exten` (the DID or extension the dialplan matched),
 * the caller its `caller.number`.
 */
import type { InboundCall, WebhookRequest } from "@agentline/telephony-kit/TelephonyProvider"
import { TelephonyError } from "@agentline/telephony-kit/TelephonyProvider"
import * as Crypto from "node:crypto"
import { type AriConfig, accountId, normalizeEndpoint } from "./Config.js"

export const SIGNATURE_HEADER = "x-agentline-ari-signature"

export const sign = (password: string, body: Uint8Array) => Crypto.createHmac("sha256", password).update(body).digest("hex")

/** Whether `request` carries the MAC of its body under the configuration's ARI password (constant time). */
export const verify = (config: Pick<AriConfig, "app_password">, request: WebhookRequest): boolean => {
  const given = request.headers[SIGNATURE_HEADER]
  if (given === undefined || !/^[0-9a-f]{64}$/.test(given)) return false
  const expected = Buffer.from(sign(config.app_password, request.rawBody), "hex")
  return Crypto.timingSafeEqual(expected, Buffer.from(given, "hex"))
}

/** The request an incoming call's StasisStart becomes; `password` signs it (a test may pass a wrong one). */
export const request = (
  config: Pick<AriConfig, "ari_endpoint" | "app_name">,
  event: Record<string, unknown>,
  password: string
): WebhookRequest => {
  const rawBody = new TextEncoder().encode(JSON.stringify({ account_id: accountId(config), event }))
  return {
    method: "POST",
    url: `${normalizeEndpoint(config.ari_endpoint)}/ari/events?app=${encodeURIComponent(config.app_name)}`,
    headers: { "content-type": "application/json", [SIGNATURE_HEADER]: sign(password, rawBody) },
    rawBody
  }
}

const unreadable = (why: string) => new TelephonyError({ provider: "ari", message: `not an ARI incoming call: ${why}`, retryable: false })

/** The routing key of an incoming call's request. */
export const parse = (input: WebhookRequest): InboundCall => {
  let body: any
  try {
    body = JSON.parse(new TextDecoder().decode(input.rawBody))
  } catch {
    throw unreadable("the body is not JSON")
  }
  const channel = body?.event?.channel
  if (typeof body?.account_id !== "string" || body?.event?.type !== "StasisStart" || typeof channel?.id !== "string") {
    throw unreadable("expected {account_id, event: StasisStart}")
  }
  const to = channel.dialplan?.exten
  if (typeof to !== "string" || to === "") throw unreadable("the channel names no dialed extension")
  return { accountId: body.account_id, to, from: typeof channel.caller?.number === "string" ? channel.caller.number : "", providerCallId: channel.id }
}

/** An inbound StasisStart: a channel the dialplan sent to Stasis, not one we originated. */
export const isIncoming = (event: Record<string, unknown>, args: ReadonlyArray<string>) =>
  event.type === "StasisStart" && (event.channel as any)?.state === "Ring" && !args.some((a) => a.startsWith("attempt_id="))
