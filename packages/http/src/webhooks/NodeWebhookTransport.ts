/**
 * The webhook transport over node:http(s). Connections go only to public addresses unless the
 * operator allows private ones: IP literals are checked before connecting, and names through the
 * socket's own `lookup`, so the address checked is the address connected to (no window for a DNS
 * answer to change between a check and the connection). Redirects are not followed (a 3xx is a failed
 * attempt): following one would let a public receiver point us at an internal one.
 */
import { isPrivateAddress } from "@agentline/core/OutboundTargets"
import { type OutgoingWebhook, type WebhookAnswer, WebhookTransport } from "@agentline/core/webhook-delivery/WebhookTransport"
import { Effect, Layer } from "effect"
import * as Dns from "node:dns"
import * as Http from "node:http"
import * as Https from "node:https"
import type { LookupFunction } from "node:net"

/** How much of a receiver's answer is read (and dropped): enough to finish the exchange politely. */
const MAX_ANSWER_BYTES = 64 * 1024

export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  Dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, "", 4)
    // With `all: true` Node answers every address (a string only without it).
    const list: ReadonlyArray<Dns.LookupAddress> = typeof addresses === "string" ? [{ address: addresses, family: 4 }] : addresses
    const refused = list.find((a) => isPrivateAddress(a.address))
    if (refused !== undefined || list.length === 0) {
      const e = Object.assign(new Error(`${hostname} resolves to ${refused?.address ?? "nothing"}, a private address`), {
        code: "EWEBHOOKPRIVATE"
      })
      return callback(e, "", 4)
    }
    if (options.all) return callback(null, [...list])
    callback(null, list[0]!.address, list[0]!.family)
  })
}

export const send = (request: OutgoingWebhook): Effect.Effect<WebhookAnswer> =>
  Effect.async<WebhookAnswer>((resume) => {
    const started = performance.now()
    const answer = (status: number | null, error: string | null) =>
      resume(Effect.succeed({ status, error, latencyMillis: performance.now() - started }))
    let url: URL
    try {
      url = new URL(request.url)
    } catch {
      answer(null, "the url is not an absolute URL")
      return
    }
    if (!request.allowPrivate && isPrivateAddress(url.hostname)) {
      answer(null, `${url.hostname} is a private address; refused`)
      return
    }
    const body = request.body === null ? undefined : Buffer.from(request.body, "utf8")
    const options: Http.RequestOptions = {
      method: request.method ?? "POST",
      headers: { ...request.headers, ...(body !== undefined ? { "content-length": String(body.length) } : {}) },
      timeout: request.timeoutMillis,
      ...(request.allowPrivate ? {} : { lookup: guardedLookup })
    }
    let settled = false
    const req = (url.protocol === "https:" ? Https : Http).request(url, options, (res) => {
      let read = 0
      res.on("data", (chunk: Buffer) => {
        read += chunk.length
        if (read > MAX_ANSWER_BYTES) res.destroy()
      })
      const done = () => {
        if (settled) return
        settled = true
        answer(res.statusCode ?? null, null)
      }
      res.on("end", done)
      res.on("close", done)
      res.on("error", done)
    })
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${request.timeoutMillis} ms`)), request.timeoutMillis)
    req.on("timeout", () => req.destroy(new Error(`no answer within ${request.timeoutMillis} ms`)))
    req.on("error", (error) => {
      if (settled) return
      settled = true
      answer(null, error.message)
    })
    req.on("close", () => clearTimeout(timer))
    req.end(body)
    return Effect.sync(() => {
      clearTimeout(timer)
      req.destroy()
    })
  })

export const layer: Layer.Layer<WebhookTransport> = Layer.succeed(WebhookTransport, WebhookTransport.of({ send }))
