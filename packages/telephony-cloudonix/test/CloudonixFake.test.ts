/**
 * The Cloudonix adapter against the fake Cloudonix, over real HTTP on 127.0.0.1: numbers bound and
 * unbound through DNIDs as Cloudonix's DNID data model has them (the application an object), and the
 * fake's requests (JSON voice application requests, session notifications) read by the adapter.
 */
import type { WebhookRequest } from "@agentline/core/telephony/TelephonyProvider"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { Cloudonix, CloudonixCallbacks } from "../src/index.js"
import * as FakeCloudonix from "../src/testing/FakeCloudonix.js"

const domain = { name: "acme.cloudonix.net", apiKey: "XIfake0123456789" }
const APPLICATION = "agentline"
const config = { bearer_token: domain.apiKey, domain_id: "acme", application_name: APPLICATION }
const INBOUND_URL = "https://agentline.example/api/v1/telephony/inbound/cloudonix"

const fakeCloudonix = Effect.acquireRelease(
  Effect.promise(() => FakeCloudonix.start({ domains: [domain], secondMillis: 5 })),
  (fake) => Effect.promise(() => fake.close())
)

/** A server on 127.0.0.1 that keeps every request it gets (as the adapter would see it) and answers `reply`. */
const recorder = (reply: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const requests: Array<WebhookRequest> = []
      const server = Http.createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          const headers: Record<string, string> = {}
          for (const [k, v] of Object.entries(request.headers)) if (typeof v === "string") headers[k] = v
          requests.push({ method: request.method ?? "POST", url: `http://127.0.0.1${request.url}`, headers, rawBody: new Uint8Array(Buffer.concat(chunks)) })
          response.writeHead(200, { "content-type": "application/xml" })
          response.end(reply)
        })
      })
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      return { requests, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
    }),
    ({ server }) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
  )

/** The fake with the adapter's application and another one ("console", as if made in the cockpit). */
const withApplications = Effect.map(fakeCloudonix, (fake) => {
  fake.application(domain.name, APPLICATION)
  fake.application(domain.name, "console")
  return { fake, adapter: Cloudonix.make({ apiUrl: fake.url }) }
})

const sync = (adapter: Cloudonix.CloudonixProvider, address: string, webhookUrl: string | null) =>
  adapter.inbound!.configure({ config, address, webhookUrl })

describe("Cloudonix against its fake", () => {
  it.scopedLive("binds a number by attaching its DNID to the application; the list reads the DNID's application object; unbinding detaches it", () =>
    Effect.gen(function*() {
      const { adapter, fake } = yield* withApplications
      // Numbers already attached, as Cloudonix lists them: the application is an object.
      fake.attach(domain.name, "+14155550101", "console")
      expect(fake.dnids(domain.name)[0]).toMatchObject({ source: "+14155550101", application: { name: "console", type: "cxml" }, active: true })

      expect(yield* sync(adapter, "+14155550100", INBOUND_URL)).toMatchObject({ ok: true })
      expect(fake.voiceUrl("+14155550100")).toBe(INBOUND_URL)
      expect(fake.dnids(domain.name).find((d) => d.source === "+14155550100")).toMatchObject({
        prefix: false,
        expression: false,
        asteriskCompatible: false,
        application: { name: APPLICATION, url: INBOUND_URL }
      })
      // Bound again: the DNID is already there.
      expect(yield* sync(adapter, "+14155550100", INBOUND_URL)).toMatchObject({ ok: true })
      expect(fake.dnids(domain.name).filter((d) => d.source === "+14155550100")).toHaveLength(1)

      expect(yield* sync(adapter, "+14155550100", null)).toMatchObject({ ok: true })
      expect(fake.voiceUrl("+14155550100")).toBe(null)
      expect(fake.dnids(domain.name).map((d) => d.source)).toEqual(["+14155550101"])
      expect(yield* sync(adapter, "+14155550100", null)).toMatchObject({ ok: true, message: expect.stringContaining("nothing to undo") })
    }))

  it.scopedLive("a number on another application is not moved nor detached; an inactive DNID is reported; a pattern is not the number", () =>
    Effect.gen(function*() {
      const { adapter, fake } = yield* withApplications

      fake.attach(domain.name, "+14155550102", "console")
      expect(yield* sync(adapter, "+14155550102", INBOUND_URL)).toEqual({
        ok: false,
        message: "Cloudonix: +14155550102 belongs to the application console; move it to agentline in the Cloudonix cockpit"
      })
      expect(yield* sync(adapter, "+14155550102", null)).toMatchObject({ ok: true, message: expect.stringContaining("nothing to undo") })
      expect(fake.dnids(domain.name).map((d) => d.source)).toContain("+14155550102")

      fake.attach(domain.name, "+14155550103", APPLICATION, { active: false })
      expect(yield* sync(adapter, "+14155550103", INBOUND_URL)).toMatchObject({ ok: false, message: expect.stringContaining("inactive") })

      // A prefix DNID that covers the number belongs to another application: the number gets a DNID of its own.
      fake.attach(domain.name, "+1415555", "console", { prefix: true })
      expect(yield* sync(adapter, "+14155550104", INBOUND_URL)).toMatchObject({ ok: true })
      expect(fake.voiceUrl("+14155550104")).toBe(INBOUND_URL)

      // Cloudonix may write the number without its "+": still the number's DNID.
      fake.attach(domain.name, "14155550105", APPLICATION)
      expect(yield* sync(adapter, "+14155550105", INBOUND_URL)).toMatchObject({ ok: true })
      expect(fake.dnids(domain.name).filter((d) => d.source.endsWith("14155550105"))).toHaveLength(1)
      expect(yield* sync(adapter, "+14155550105", null)).toMatchObject({ ok: true })
      expect(fake.dnids(domain.name).filter((d) => d.source.endsWith("14155550105"))).toHaveLength(0)
    }))

  it.scopedLive("the fake's incoming-call request is JSON, and the adapter reads it", () =>
    Effect.gen(function*() {
      const fake = yield* fakeCloudonix
      const server = yield* recorder(`<?xml version="1.0" encoding="UTF-8"?><Response><Hangup/></Response>`)
      fake.application(domain.name, APPLICATION, server.url)
      fake.attach(domain.name, "+14155550106", APPLICATION)
      const call = (yield* Effect.promise(() => fake.placeInbound({ to: "+14155550106", from: "+14155550199" })))!
      const [request] = server.requests
      expect(request!.headers["content-type"]).toBe("application/json")
      expect(JSON.parse(new TextDecoder().decode(request!.rawBody))).toMatchObject({
        Domain: domain.name,
        To: "+14155550106",
        From: "+14155550199",
        Direction: "inbound",
        Session: call.sid,
        SessionData: { token: call.sid, status: "processing" }
      })
      expect(yield* Cloudonix.provider.webhooks.parseInbound({ request: request! })).toEqual({
        accountId: domain.name,
        to: "+14155550106",
        from: "+14155550199",
        providerCallId: call.sid
      })
      expect(Cloudonix.isAuthentic(domain.apiKey, request!)).toBe(true)
    }))

  it.scopedLive("a placed call's session notifications are JSON session objects in Cloudonix's states, read as the call's progress", () =>
    Effect.gen(function*() {
      const fake = yield* fakeCloudonix
      const server = yield* recorder(`<?xml version="1.0" encoding="UTF-8"?><Response><Pause length="3"/></Response>`)
      const adapter = Cloudonix.make({ apiUrl: fake.url })
      const { providerCallId } = yield* adapter.calls.place({
        config,
        to: "+14155550107",
        from: "+14155550100",
        attemptId: 1,
        callbackUrl: `${server.url}/callback`,
        answerUrl: `${server.url}/answer`,
        whenAnswered: { _tag: "KeepOpen" },
        onEvent: () => Effect.void
      })
      const call = fake.call(providerCallId)!
      yield* Effect.promise(() => call.ended)
      expect(yield* Effect.promise(() => call.report("processing"))).toBe(200)
      const notifications = server.requests.filter((r) => r.url.endsWith("/callback")).map((r) => JSON.parse(new TextDecoder().decode(r.rawBody)))
      expect(notifications.map((n) => n.status)).toEqual(["new", "ringing", "connected", "connected", "processing"])
      const events = server.requests.filter((r) => r.url.endsWith("/callback")).flatMap((r) => {
        const parsed = CloudonixCallbacks.parseStatus(new TextDecoder().decode(r.rawBody), 0)
        return parsed._tag === "Events" ? parsed.events.map((e) => (e.type === "ended" ? `ended:${e.outcome}:${e.durationSeconds}` : e.type)) : ["invalid"]
      })
      expect(events).toEqual(["initiated", "ringing", "answered", `ended:completed:${call.durationSeconds}`])
      expect(call.durationSeconds).toBeGreaterThan(0)
      // The answer request after the <Redirect> is a JSON voice application request of the answered call.
      const answer = server.requests.find((r) => r.url.endsWith("/answer"))!
      expect(JSON.parse(new TextDecoder().decode(answer.rawBody))).toMatchObject({ CallStatus: "in-progress", Direction: "outbound-api", Session: providerCallId })
      expect(yield* adapter.calls.get({ config, providerCallId })).toEqual({ _tag: "Ended", outcome: "completed", durationSeconds: call.durationSeconds })
    }))
})
