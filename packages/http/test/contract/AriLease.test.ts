/**
 * Two server processes on one PostgreSQL, one Asterisk: Asterisk gives a Stasis application's events
 * to the WebSocket that registered it last, so exactly one process may hold it. The configuration's
 * connection is leased: one process holds the events WebSocket, the other places its calls over REST
 * and the holder serves them (events to the attempt, media once answered); when the holder stops, the
 * other takes the lease and the WebSocket over. (Two apps in one test process, each with its own
 * adapter instance, dispatcher identity and port, as two processes would be.)
 */
import { Dispatcher } from "@agentline/core/dispatcher/Dispatcher"
import { DispatcherSettings } from "@agentline/core/dispatcher/DispatcherSettings"
import { Database, Testing } from "@agentline/sql"
import { Ari } from "@agentline/telephony-ari"
import * as FakeAri from "@agentline/telephony-ari/testing/FakeAri"
import { FetchHttpClient } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { type Context, Effect, Exit, Layer, Redacted, Scope } from "effect"
import { call, seedOrganization } from "../Harness.js"
import { freePort, liveApp } from "./LiveServer.js"
import { loopback, recordings } from "./Loopback.js"

const user = { name: "agentline-lease", password: "ari-lease-password-0123" }
const WS_CLIENT = "agentline_media"

const definition = {
  nodes: [
    { id: "start", type: "startCall", position: { x: 0, y: 0 }, data: { name: "Start", prompt: "Greet the caller" } },
    { id: "end", type: "endCall", position: { x: 0, y: 100 }, data: { name: "End", prompt: "Say goodbye" } }
  ],
  edges: [{ id: "e1", source: "start", target: "end", data: { label: "finish", condition: "Done" } }]
}

const sleep = (millis: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, millis)))

/** Polls `check` (real time) until it holds, or dies saying what it waited for. */
const eventually = <A>(check: Effect.Effect<A | undefined>, what: string, timeoutMillis = 15_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMillis
    for (;;) {
      const value = yield* check
      if (value !== undefined) return value
      if (Date.now() > deadline) return yield* Effect.dieMessage(`timed out waiting for ${what}`)
      yield* sleep(50)
    }
  })

describe.runIf(Testing.dialects.includes("pg"))("ARI with two server processes [pg]", () => {
  it.live("one events WebSocket for the application; the other process's calls are served by its holder; the lease moves when it stops", () =>
    Effect.gen(function*() {
      const { url } = yield* Testing.freshPgDatabase
      const ports = [yield* freePort, yield* freePort] as const
      const mediaOf = (port: number) => `ws://127.0.0.1:${port}/api/v1/telephony/media/ari`
      const fake = yield* Effect.acquireRelease(
        Effect.promise(() => FakeAri.start({ user: user.name, password: user.password, secondMillis: 20, websocketClients: { [WS_CLIENT]: mediaOf(ports[0]) } })),
        (f) => Effect.promise(() => f.close())
      )
      const start = (port: number) =>
        Effect.gen(function*() {
          const scope = yield* Scope.make()
          const database = Database.layerPg({ url: Redacted.make(url), maxConnections: 4 }).pipe(Layer.orDie)
          const app = yield* Layer.buildWithScope(
            liveApp("pg", port, [yield* Ari.make({ apiUrl: fake.url }).pipe(Effect.provide(FetchHttpClient.layer))], loopback, undefined, { dispatcherLeaseSeconds: 3, dispatcherDrainSeconds: 1 }, database),
            scope
          )
          return { scope, app, port, node: (yield* Effect.provide(DispatcherSettings, app)).nodeId }
        })
      const a = yield* start(ports[0])
      const b = yield* start(ports[1])
      yield* Effect.addFinalizer(() => Effect.all([Scope.close(b.scope, Exit.void), Scope.close(a.scope, Exit.void)], { discard: true }))
      const inApp = <X, E>(app: { readonly app: Context.Context<any> }, effect: Effect.Effect<X, E, any>) =>
        Effect.provide(effect, app.app) as Effect.Effect<X, E>

      // An organization calling through Asterisk, set up through process A.
      const setup = yield* inApp(a, Effect.gen(function*() {
        const org = yield* seedOrganization()
        const config = yield* call("POST", "/api/v1/organizations/telephony-configs", {
          apiKey: org.apiKey,
          body: {
            name: "asterisk",
            config: { provider: "ari", ari_endpoint: fake.url, app_name: user.name, app_password: user.password, ws_client_name: WS_CLIENT },
            is_default_outbound: true
          }
        })
        expect(config.status, JSON.stringify(config.body)).toBe(200)
        const agent = yield* call("POST", "/api/v1/workflow/create/definition", { apiKey: org.apiKey, body: { name: "Lease agent", workflow_definition: definition } })
        expect(agent.status).toBe(200)
        return { apiKey: org.apiKey, agent: agent.body as { id: number; workflow_uuid: string } }
      }))

      const ownerSeenBy = (app: typeof a) =>
        inApp(app, Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ owner_node: string }>`SELECT owner_node FROM connection_leases`)).pipe(
          Effect.orDie,
          Effect.map((rows) => rows[0]?.owner_node)
        )
      const holderNode = yield* eventually(ownerSeenBy(b), "a process to take the connection's lease")
      const [holder, other] = holderNode === a.node ? [a, b] : [b, a]
      yield* eventually(Effect.sync(() => fake.eventSockets(user.name) === 1 ? true : undefined), "the holder's events WebSocket")
      // Several lease periods later: still one WebSocket (the other process never registered the application).
      yield* sleep(3_500)
      expect(fake.eventSockets(user.name)).toBe(1)
      expect(yield* ownerSeenBy(other)).toBe(holder.node)

      /** A call placed through `through`'s API to a callee who answers and talks a little: its finished run. */
      const callThrough = (through: typeof a, to: string) =>
        Effect.gen(function*() {
          fake.behave(to, { answer: "human", talkSeconds: 20 })
          const placed = yield* inApp(through, call("POST", `/api/v1/public/agent/workflow/${setup.agent.workflow_uuid}`, { apiKey: setup.apiKey, body: { phone_number: to } }))
          expect(placed.status, JSON.stringify(placed.body)).toBe(200)
          const runId = placed.body.workflow_run_id as number
          return yield* eventually(
            Effect.map(
              inApp(through, call("GET", `/api/v1/workflow/${setup.agent.id}/runs/${runId}`, { apiKey: setup.apiKey })),
              (r) => (r.body.is_completed === true ? r.body : undefined)
            ),
            `run ${runId} to complete`
          )
        })

      // A call placed by the process without the WebSocket: its events and media come through the holder.
      const first = yield* callThrough(other, "+14155550171")
      expect(first.gathered_context.outcome).toBe("completed")
      const statuses = (first.logs.telephony_status_callbacks as Array<{ status: string; call_id: string }>).map((e) => e.status)
      expect(statuses).toEqual(expect.arrayContaining(["initiated", "answered", "ended"]))
      const channelId = first.logs.telephony_status_callbacks[0].call_id as string
      expect(recordings.has(channelId), "the holder connected the call's audio").toBe(true)

      // A second configuration on the same box and application, made through the other process: the
      // connection (and its lease) is shared, so still one WebSocket.
      const twin = yield* inApp(other, call("POST", "/api/v1/organizations/telephony-configs", {
        apiKey: setup.apiKey,
        body: { name: "asterisk twin", config: { provider: "ari", ari_endpoint: fake.url, app_name: user.name, app_password: user.password, ws_client_name: WS_CLIENT } }
      }))
      expect(twin.status, JSON.stringify(twin.body)).toBe(200)
      yield* sleep(2_500)
      expect(fake.eventSockets(user.name)).toBe(1)

      // A call in progress (placed by the other process) when the holder stops: the other process takes
      // the lease and the application's WebSocket, and hears the call end, a completed call.
      fake.behave("+14155550173", { answer: "human", talkSeconds: 250 })
      const during = yield* inApp(other, call("POST", `/api/v1/public/agent/workflow/${setup.agent.workflow_uuid}`, { apiKey: setup.apiKey, body: { phone_number: "+14155550173" } }))
      expect(during.status).toBe(200)
      const runOf = (runId: number) => Effect.map(inApp(other, call("GET", `/api/v1/workflow/${setup.agent.id}/runs/${runId}`, { apiKey: setup.apiKey })), (r) => r.body)
      yield* eventually(
        Effect.map(runOf(during.body.workflow_run_id), (run) => (run.logs.telephony_status_callbacks ?? []).some((e: any) => e.status === "answered") ? true : undefined),
        "the call to be answered"
      )
      fake.websocketClient(WS_CLIENT, mediaOf(other.port))
      yield* Scope.close(holder.scope, Exit.void)
      yield* eventually(Effect.map(ownerSeenBy(other), (node) => (node === other.node ? node : undefined)), "the other process to take the lease")
      yield* eventually(Effect.sync(() => fake.eventSockets(user.name) === 1 ? true : undefined), "the new holder's events WebSocket")
      const ended = yield* eventually(Effect.map(runOf(during.body.workflow_run_id), (run) => (run.is_completed === true ? run : undefined)), "the call in progress to end", 20_000)
      expect(ended.gathered_context.outcome).toBe("completed")

      const second = yield* callThrough(other, "+14155550172")
      expect(second.gathered_context.outcome).toBe("completed")
      expect(recordings.has(second.logs.telephony_status_callbacks[0].call_id as string)).toBe(true)

      // The calls the holder settled for it are not left in progress in the process that placed them.
      yield* eventually(Effect.map(inApp(other, Effect.flatMap(Dispatcher, (d) => d.inProgress)), (n) => (n === 0 ? true : undefined)), "nothing left in progress")
    }).pipe(Effect.scoped), 120_000)
})
