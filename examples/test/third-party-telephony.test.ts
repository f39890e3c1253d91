/**
 * The example third-party adapter (`examples/third-party-telephony`): its pure protocol parts, the
 * demo against a fake Acme API, and an embedding application registering it under `twilio` — replacing
 * the built-in, configuration-only `twilio` — and calling through it end to end.
 */
import { ApiKeys } from "@agentline/core/api-keys/ApiKeys"
import { acting } from "@agentline/core/organizations/Principal"
import type { CallEvent } from "@agentline/core/telephony/TelephonyProvider"
import { TelephonyRegistry } from "@agentline/core/telephony/TelephonyRegistry"
import { Users } from "@agentline/core/users/Users"
import { Server, ServerConfig } from "@agentline/http"
import { Testing } from "@agentline/sql"
import { FetchHttpClient, HttpApiBuilder, HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { DateTime, Effect, Layer, Option, Redacted } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as AcmeMedia from "../third-party-telephony/AcmeMedia.js"
import * as Acme from "../third-party-telephony/AcmeTelephony.js"
import { runDemo, startFakeAcme } from "../third-party-telephony/demo.js"
import { TelephonyLiveAcmeAsTwilio } from "../third-party-telephony/registry.js"

describe("Acme protocol (pure)", () => {
  it("maps statuses to normalized events, talk time only for answered calls", () => {
    const at = "2026-01-01T00:00:00.000Z"
    const events = (status: Acme.AcmeStatus, duration?: number): ReadonlyArray<CallEvent> =>
      Acme.toEvents({ call_id: "CA1", status, timestamp: DateTime.unsafeMake(at), ...(duration !== undefined ? { duration } : {}) })
    expect(events("queued")).toEqual([])
    expect(events("ringing").map((e) => e.type)).toEqual(["ringing"])
    expect(events("completed", 42)).toMatchObject([{ type: "ended", outcome: "completed", durationSeconds: 42 }])
    expect(events("machine", 7)).toMatchObject([{ type: "ended", outcome: "voicemail", durationSeconds: 7 }])
    expect(events("no-answer", 30)).toMatchObject([{ type: "ended", outcome: "no_answer", durationSeconds: 0 }])
  })

  it("signatures verify within the tolerance only, and only for the signed body", () => {
    const body = new TextEncoder().encode("{}")
    const now = 1_700_000_000_000
    const header = Acme.sign("s", now / 1000, body)
    expect(Acme.verify("s", header, body, now)).toBe(true)
    expect(Acme.verify("s", header, body, now + (Acme.signatureToleranceSeconds + 1) * 1000)).toBe(false)
    expect(Acme.verify("other", header, body, now)).toBe(false)
    expect(Acme.verify("s", header, new TextEncoder().encode("{ }"), now)).toBe(false)
    expect(Acme.verify("s", undefined, body, now)).toBe(false)
  })

  it("writes a call-flow document for each instruction", () => {
    expect(JSON.parse(Acme.answer({ _tag: "ConnectMediaStream", url: "wss://x/m", parameters: { a: "1" } }).body))
      .toEqual({ actions: [{ type: "stream", url: "wss://x/m", params: { a: "1" } }] })
    expect(JSON.parse(Acme.answer({ _tag: "Reject", reason: "no" }).body)).toEqual({ actions: [{ type: "reject", reason: "no" }] })
    expect(Acme.actions({ _tag: "KeepOpen" })[0]).toMatchObject({ type: "pause" })
  })

  it.effect("the media codec carries 16 kHz linear PCM both ways", () =>
    Effect.gen(function*() {
      const codec = AcmeMedia.session()
      const [start] = yield* codec.decode({
        _tag: "Text",
        text: JSON.stringify({ event: "start", stream_id: "s1", call_id: "CA1", format: { encoding: "l16le", rate: 16000 } })
      })
      expect(start).toMatchObject({ _tag: "Start", format: { encoding: "l16le", sampleRate: 16000 } })
      const pcm = new Uint8Array([1, 0, 2, 0])
      const [frame] = yield* codec.encode({ _tag: "Audio", audio: { format: { encoding: "l16le", sampleRate: 16000 }, data: pcm } })
      expect(frame).toEqual({ _tag: "Text", text: JSON.stringify({ event: "media", payload: "AQACAA==" }) })
      const [audio] = yield* codec.decode(frame!)
      expect(audio).toEqual({ _tag: "Audio", audio: { format: { encoding: "l16le", sampleRate: 16000 }, data: pcm } })
      expect((yield* Effect.flip(codec.encode({ _tag: "Audio", audio: { format: { encoding: "mulaw", sampleRate: 8000 }, data: pcm } }))).message)
        .toContain("l16le at 16000 Hz")
    }))
})

describe("Acme demo against a fake Acme API", () => {
  it("places, follows, hangs up and looks up a call; sets up a number; answers a webhook", async () => {
    const result = await runDemo()
    expect(result.providers).toContain("acme")
    expect(result.events).toEqual(["ringing", "answered", "ended:completed:42"])
    expect(result.forgedAccepted).toBe(false)
    expect(result.statusBeforeHangup).toEqual({ _tag: "InProgress" })
    expect(result.hangup._tag).toBe("Right")
    expect(result.secondHangup._tag).toBe("Right")
    expect(result.statusAfterHangup).toEqual({ _tag: "Ended", outcome: "canceled", durationSeconds: 0 })
    expect(result.unknownCall._tag).toBe("Unknown")
    expect(result.inbound.ok).toBe(true)
    expect(result.inboundOther.ok).toBe(false)
    expect(JSON.parse(result.answered.body)).toEqual({ actions: [{ type: "reject", reason: "no agent for this number" }] })
    expect(result.callFlow).toMatchObject({ actions: [{ type: "stream", url: "wss://calls.example.com/media/17" }] })
    expect(result.idempotencyKey).toBe("agentline-17")
  })
})

describe("an application replacing the built-in twilio with its own adapter", () => {
  it.effect("the registry holds the application's adapter under the name", () =>
    Effect.gen(function*() {
      const registry = yield* TelephonyRegistry
      const twilio = Option.getOrThrow(registry.get("twilio"))
      expect(twilio.displayName).toBe("Twilio (through Acme)")
      expect(twilio.fields.map((f) => f.name)).toEqual(["base_url", "account_id", "api_key", "webhook_secret"])
      // It places calls itself, with the three operations of the port.
      expect(Object.keys(twilio.calls ?? {}).sort()).toEqual(["get", "hangUp", "place"])
      expect(registry.all.filter((p) => p.name === "twilio")).toHaveLength(1)
    }).pipe(Effect.provide(Layer.fresh(TelephonyLiveAcmeAsTwilio))))

  it.live("twilio configurations then take Acme's fields and place their calls through Acme", () =>
    Effect.gen(function*() {
      const fake = yield* Effect.acquireRelease(Effect.promise(() => startFakeAcme("acme-key")), (f) => Effect.promise(f.close))
      const acme = yield* Acme.make({ name: "twilio", displayName: "Twilio (through Acme)" }).pipe(Effect.provide(FetchHttpClient.layer))
      const app = HttpApiBuilder.serve().pipe(
        Layer.provideMerge(Server.HttpAppLive),
        Layer.provideMerge(NodeHttpServer.layerTest),
        Layer.provideMerge(ServerConfig.ServerConfig.layer({
          port: 0,
          host: "127.0.0.1",
          dataDir: NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "agentline-acme-")),
          publicUrl: "http://127.0.0.1:0",
          version: "test",
          secretKey: Redacted.make("test-secret"),
          publicLinkTtlSeconds: 3600,
          maxUploadBytes: 1024 * 1024,
          uploadUrlTtlSeconds: 900,
          telephonyProviders: [acme]
        })),
        Layer.provideMerge(Testing.layerEmptyDatabase("sqlite"))
      )
      yield* Effect.gen(function*() {
        const admin = yield* (yield* Users).create({
          email: "admin@acme-embedder.test",
          password: "initial-password",
          role: "admin",
          organization: { name: "embedder" },
          mustChangePassword: false
        })
        const apiKey = (yield* (yield* ApiKeys).create(acting(admin), "test")).api_key
        const client = yield* HttpClient.HttpClient
        const send = (method: "GET" | "POST", path: string, body?: unknown, headers: Record<string, string> = { "x-api-key": apiKey }) =>
          Effect.gen(function*() {
            let request = HttpClientRequest.make(method)(path).pipe(HttpClientRequest.setHeaders(headers))
            if (body !== undefined) request = HttpClientRequest.bodyText(request, JSON.stringify(body), "application/json")
            const response = yield* client.execute(request)
            return { status: response.status, body: (yield* response.json) as any }
          }).pipe(Effect.scoped, Effect.orDie)

        const metadata = yield* send("GET", "/api/v1/organizations/telephony-providers/metadata")
        const twilio = metadata.body.providers.find((p: any) => p.provider === "twilio")
        expect(twilio.fields.map((f: any) => f.name)).toEqual(["base_url", "account_id", "api_key", "webhook_secret"])
        // The built-in twilio's fields are refused now: the configuration is Acme's.
        expect((yield* send("POST", "/api/v1/organizations/telephony-configs", {
          name: "old",
          config: { provider: "twilio", account_sid: "AC1", auth_token: "t" }
        })).status).toBe(422)
        const configuration = yield* send("POST", "/api/v1/organizations/telephony-configs", {
          name: "acme",
          is_default_outbound: true,
          config: { provider: "twilio", base_url: fake.baseUrl, account_id: "AC-embed", api_key: "acme-key", webhook_secret: "whsec" }
        })
        expect(configuration.status).toBe(200)
        const agent = yield* send("POST", "/api/v1/workflow/create/definition", {
          name: "Caller",
          workflow_definition: {
            nodes: [
              { id: "start", type: "startCall", position: { x: 0, y: 0 }, data: { name: "Start", prompt: "Greet" } },
              { id: "end", type: "endCall", position: { x: 0, y: 100 }, data: { name: "End", prompt: "Bye" } }
            ],
            edges: [{ id: "e1", source: "start", target: "end", data: { label: "finish", condition: "Done" } }]
          }
        })
        const placed = yield* send("POST", `/api/v1/public/agent/workflow/${agent.body.workflow_uuid}`, { phone_number: "+14155550100" })
        expect(placed.status).toBe(200)

        const request = fake.requests.find((r) => r.method === "POST" && r.path === "/v1/accounts/AC-embed/calls")!
        const sent = request.body as { status_callback: string; actions: ReadonlyArray<{ type: string }> }
        expect(sent.status_callback).toMatch(/^http:\/\/127\.0\.0\.1:0\/api\/v1\/telephony\/callbacks\/twilio\/\d+$/)
        // Once answered, the call streams its audio to this server's media WebSocket (single-use token).
        expect(sent.actions).toEqual([{
          type: "stream",
          url: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:0\/api\/v1\/telephony\/media\/twilio\/[A-Za-z0-9_-]{20,}$/),
          params: { attempt_id: expect.stringMatching(/^\d+$/) }
        }])

        const callbackPath = new URL(sent.status_callback).pathname
        const now = Date.now()
        const body = JSON.stringify({ call_id: "CA1", status: "completed", timestamp: new Date(now).toISOString(), duration: 12 })
        const signature = Acme.sign("whsec", Math.floor(now / 1000), new TextEncoder().encode(body))
        const callback = yield* send("POST", callbackPath, JSON.parse(body), { "content-type": "application/json", "acme-signature": signature })
        expect(callback).toEqual({ status: 200, body: { ok: true, events: 1 } })
        const run = yield* send("GET", `/api/v1/workflow/${agent.body.id}/runs/${placed.body.workflow_run_id}`)
        expect(run.body).toMatchObject({ is_completed: true, mode: "twilio" })
        expect(run.body.gathered_context.outcome).toBe("completed")
      }).pipe(Effect.provide(app))
    }).pipe(Effect.scoped), { timeout: 60_000 })
})
