/**
 * The Acme adapter against a tiny fake of the Acme API on 127.0.0.1 — the way to test an adapter
 * without a carrier account: place a call, receive its signed status callbacks, hang up, look it up,
 * set up an inbound number and answer a webhook, all through the port as Agentline would call it.
 *
 *   node --import tsx examples/third-party-telephony/demo.ts
 */
import type { CallEvent, WebhookRequest } from "@agentline/telephony-kit/TelephonyProvider"
import { TelephonyRegistry } from "@agentline/core/telephony/TelephonyRegistry"
import { Effect, Layer, Option, Schema } from "effect"
import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import * as Acme from "./AcmeTelephony.js"
import { TelephonyLive } from "./registry.js"

const OWNED = "+14155550100"

/** A fake Acme API: calls in memory, one owned number, bearer auth checked. */
export const startFakeAcme = async (apiKey: string) => {
  const calls = new Map<string, { status: string; duration: number }>()
  const requests: Array<{ method: string; path: string; idempotencyKey: string | undefined; body?: unknown }> = []
  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let text = ""
      req.on("data", (chunk) => (text += chunk))
      req.on("end", () => resolve(text))
    })
  const server: Server = createServer(async (req, res) => {
    const path = new URL(req.url ?? "/", "http://fake").pathname
    requests.push({ method: req.method ?? "", path, idempotencyKey: req.headers["idempotency-key"] as string | undefined })
    const reply = (status: number, body?: unknown) => {
      res.writeHead(status, { "content-type": "application/json" })
      res.end(body === undefined ? "" : JSON.stringify(body))
    }
    if (req.headers.authorization !== `Bearer ${apiKey}`) return reply(401, { error: "unauthorized" })
    const body = await read(req)
    if (body !== "") requests[requests.length - 1]!.body = JSON.parse(body)
    const [, , , , resource, id, action] = path.split("/") // /v1/accounts/{account}/{resource}/{id}/{action}
    if (resource === "calls" && req.method === "POST" && id === undefined) {
      const input = JSON.parse(body)
      if (typeof input.to !== "string" || typeof input.status_callback !== "string") return reply(400, { error: "to and status_callback are required" })
      const callId = `CA${calls.size + 1}`
      calls.set(callId, { status: "queued", duration: 0 })
      return reply(201, { id: callId, status: "queued" })
    }
    const call = id === undefined ? undefined : calls.get(decodeURIComponent(id))
    if (resource === "calls" && action === "hangup") {
      if (call === undefined) return reply(404)
      if (call.status === "canceled" || call.status === "completed") return reply(409)
      call.status = "canceled"
      return reply(200, { id, status: "canceled" })
    }
    if (resource === "calls" && req.method === "GET") {
      return call === undefined ? reply(404) : reply(200, { id, status: call.status, duration: call.duration })
    }
    if (resource === "numbers") return decodeURIComponent(id ?? "") === OWNED ? reply(200, { number: OWNED }) : reply(404)
    return reply(404)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/** A status callback as Acme would send it, signed. */
export const signedCallback = (secret: string, body: unknown, atMillis: number): WebhookRequest => {
  const rawBody = new TextEncoder().encode(JSON.stringify(body))
  return {
    method: "POST",
    url: "https://calls.example.com/api/v1/telephony/callbacks/acme/1",
    headers: { "content-type": "application/json", "Acme-Signature": Acme.sign(secret, Math.floor(atMillis / 1000), rawBody) },
    rawBody
  }
}

export const runDemo = async () => {
  const fake = await startFakeAcme("acme-api-key")
  try {
    const program = Effect.gen(function*() {
      const registry = yield* TelephonyRegistry
      const found = Option.getOrThrow(registry.get("acme"))
      const { calls, inbound, webhooks } = found
      if (calls === undefined || webhooks === undefined || inbound === undefined) return yield* Effect.die("acme is incomplete")
      const acme = { ...found, calls, inbound, webhooks }
      // Credentials arrive like any configuration body, and are decoded by the adapter's own schema.
      const config = Schema.decodeUnknownSync(acme.configSchema)({
        provider: "acme",
        base_url: fake.baseUrl,
        account_id: "AC-demo",
        api_key: "acme-api-key",
        webhook_secret: "whsec-demo"
      })
      const placed = yield* acme.calls.place({
        config,
        to: OWNED,
        from: "+14155550199",
        attemptId: 17,
        callbackUrl: "https://calls.example.com/api/v1/telephony/callbacks/acme/17",
        answerUrl: "https://calls.example.com/api/v1/telephony/answer/acme/17",
        whenAnswered: { _tag: "ConnectMediaStream", url: "wss://calls.example.com/media/17", parameters: { attempt_id: "17" } },
        onEvent: () => Effect.void
      })
      const now = Date.now()
      const events: Array<CallEvent> = []
      for (const status of ["ringing", "answered", "completed"]) {
        const request = signedCallback("whsec-demo", {
          call_id: placed.providerCallId,
          status,
          timestamp: new Date(now).toISOString(),
          duration: 42
        }, now)
        if (!(yield* acme.webhooks.verify({ config, request }))) return yield* Effect.die("signature rejected")
        events.push(...(yield* acme.webhooks.parseStatus({ config, request })))
      }
      const forged = signedCallback("not-the-secret", { call_id: placed.providerCallId, status: "completed", timestamp: new Date(now).toISOString() }, now)
      return {
        providers: registry.all.map((p) => p.name),
        providerCallId: placed.providerCallId,
        events: events.map((e) => (e.type === "ended" ? `ended:${e.outcome}:${e.durationSeconds}` : e.type)),
        forgedAccepted: yield* acme.webhooks.verify({ config, request: forged }),
        statusBeforeHangup: yield* acme.calls.get({ config, providerCallId: placed.providerCallId }),
        hangup: yield* Effect.either(acme.calls.hangUp({ config, providerCallId: placed.providerCallId })),
        secondHangup: yield* Effect.either(acme.calls.hangUp({ config, providerCallId: placed.providerCallId })),
        statusAfterHangup: yield* acme.calls.get({ config, providerCallId: placed.providerCallId }),
        unknownCall: yield* acme.calls.get({ config, providerCallId: "CA404" }),
        inbound: yield* acme.inbound.configure({ config, address: OWNED, webhookUrl: "https://calls.example.com/inbound/acme" }),
        inboundOther: yield* acme.inbound.configure({ config, address: "+14155550111", webhookUrl: "https://calls.example.com/inbound/acme" }),
        answered: acme.webhooks.answer({ config, instruction: { _tag: "Reject", reason: "no agent for this number" } }),
        callFlow: fake.requests.find((r) => r.method === "POST" && r.path.endsWith("/calls"))?.body,
        idempotencyKey: fake.requests.find((r) => r.method === "POST" && r.path.endsWith("/calls"))?.idempotencyKey
      }
    })
    return await Effect.runPromise(Effect.provide(program, Layer.fresh(TelephonyLive)))
  } finally {
    await fake.close()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await runDemo(), null, 2))
}
