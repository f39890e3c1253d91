/**
 * The example third-party adapter (`examples/third-party-telephony`, a package of its own whose tests
 * run the kit's contract: `third-party-package.test.ts`) in an embedding application, registered under
 * `twilio` — replacing the built-in `twilio` — and called through end to end.
 */
import { ApiKeys } from "@agentline/core/api-keys/ApiKeys"
import { acting } from "@agentline/core/organizations/Principal"
import { TelephonyRegistry } from "@agentline/core/telephony/TelephonyRegistry"
import { Users } from "@agentline/core/users/Users"
import { Server, ServerConfig } from "@agentline/http"
import { Testing } from "@agentline/sql"
import { FetchHttpClient, HttpApiBuilder, HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as Acme from "../third-party-telephony/src/Acme.js"
import * as FakeAcme from "../third-party-telephony/src/testing/FakeAcme.js"
import { TelephonyLiveAcmeAsTwilio } from "../third-party-telephony/registry.js"

describe("an application replacing the built-in twilio with its own adapter", () => {
  it.effect("the registry holds the application's adapter under the name", () =>
    Effect.gen(function*() {
      const registry = yield* TelephonyRegistry
      const twilio = Option.getOrThrow(registry.get("twilio"))
      expect(twilio.displayName).toBe("Twilio (through Acme)")
      expect(twilio.fields.map((f) => f.name)).toEqual(["account_id", "api_key", "webhook_secret"])
      // It places calls itself, with the three operations of the port.
      expect(Object.keys(twilio.calls ?? {}).sort()).toEqual(["get", "hangUp", "place"])
      expect(registry.all.filter((p) => p.name === "twilio")).toHaveLength(1)
    }).pipe(Effect.provide(Layer.fresh(TelephonyLiveAcmeAsTwilio))))

  it.live("twilio configurations then take Acme's fields and place their calls through Acme", () =>
    Effect.gen(function*() {
      const account = { id: "AC-embed", apiKey: "acme-key", webhookSecret: "whsec" }
      // Acme's seconds are real ones here: the callee lets it ring while the test plays the callbacks itself.
      const fake = yield* Effect.acquireRelease(Effect.promise(() => FakeAcme.start({ account, secondMillis: 1000 })), (f) => Effect.promise(f.close))
      fake.behave("+14155550100", { answer: "no-answer" })
      const acme = yield* Acme.make({ apiUrl: fake.url, name: "twilio", displayName: "Twilio (through Acme)" }).pipe(Effect.provide(FetchHttpClient.layer))
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
        expect(twilio.fields.map((f: any) => f.name)).toEqual(["account_id", "api_key", "webhook_secret"])
        // The built-in twilio's fields are refused now: the configuration is Acme's.
        expect((yield* send("POST", "/api/v1/organizations/telephony-configs", {
          name: "old",
          config: { provider: "twilio", account_sid: "AC1", auth_token: "t" }
        })).status).toBe(422)
        const configuration = yield* send("POST", "/api/v1/organizations/telephony-configs", {
          name: "acme",
          is_default_outbound: true,
          config: { provider: "twilio", account_id: "AC-embed", api_key: "acme-key", webhook_secret: "whsec" }
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

        const [dialed] = fake.calls()
        const sent = dialed!.options
        expect(sent.statusCallback).toMatch(/^http:\/\/127\.0\.0\.1:0\/api\/v1\/telephony\/callbacks\/twilio\/\d+$/)
        // Once answered, the call streams its audio to this server's media WebSocket (single-use token).
        expect(sent.actions).toEqual([{
          type: "stream",
          url: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:0\/api\/v1\/telephony\/media\/twilio\/[A-Za-z0-9_-]{20,}$/),
          params: { attempt_id: expect.stringMatching(/^\d+$/) }
        }])

        const callbackPath = new URL(sent.statusCallback!).pathname
        const now = Date.now()
        const body = JSON.stringify({ call_id: dialed!.id, status: "completed", timestamp: new Date(now).toISOString(), duration: 12 })
        const signature = Acme.Callbacks.sign("whsec", Math.floor(now / 1000), new TextEncoder().encode(body))
        const callback = yield* send("POST", callbackPath, JSON.parse(body), { "content-type": "application/json", "acme-signature": signature })
        expect(callback).toEqual({ status: 200, body: { ok: true, events: 1 } })
        const run = yield* send("GET", `/api/v1/workflow/${agent.body.id}/runs/${placed.body.workflow_run_id}`)
        expect(run.body).toMatchObject({ is_completed: true, mode: "twilio" })
        expect(run.body.gathered_context.outcome).toBe("completed")
      }).pipe(Effect.provide(app))
    }).pipe(Effect.scoped), { timeout: 60_000 })
})
