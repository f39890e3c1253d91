/**
 * A provider whose connection drops while its media WebSocket is being upgraded (after the server
 * checked the token, before the handshake) must leave nothing behind: the `ws` library never answers
 * an upgrade of a socket that is already closing, and an upgrade waited on without bound would hold
 * the server's shutdown for ever. On SQLite and PostgreSQL (the token check is slower on PostgreSQL,
 * which is where the race showed).
 */
import { MediaTokens } from "@agentline/core/media/MediaTokens"
import { AttemptId } from "@agentline/api/Ids"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Scope } from "effect"
import * as Net from "node:net"
import { call, dialects, seedOrganization } from "./Harness.js"
import { freePort, liveApp } from "./contract/LiveServer.js"

const definition = {
  nodes: [
    { id: "start", type: "startCall", position: { x: 0, y: 0 }, data: { name: "Start", prompt: "Greet the caller" } },
    { id: "end", type: "endCall", position: { x: 0, y: 100 }, data: { name: "End", prompt: "Say goodbye" } }
  ],
  edges: [{ id: "e1", source: "start", target: "end", data: { label: "finish", condition: "Done" } }]
}

/** A WebSocket handshake for `path`, sent with the connection's end (FIN) right behind it. */
const upgradeThenHangUp = (port: number, path: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const socket = Net.connect(port, "127.0.0.1", () => {
        socket.end(
          `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
            `Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`
        )
      })
      socket.on("error", () => {})
      return socket
    }),
    (socket) => Effect.sync(() => socket.destroy())
  )

const sleep = (millis: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, millis)))

describe("media upgrade of a vanished connection", () => {
  for (const dialect of dialects) {
    it.live(`the server still shuts down at once [${dialect}]`, () =>
      Effect.gen(function*() {
        const port = yield* freePort
        const scope = yield* Scope.make()
        const app = yield* Layer.buildWithScope(liveApp(dialect, port, [], undefined, undefined, { dispatcherDrainSeconds: 1 }), scope)
        const attemptId = yield* Effect.gen(function*() {
          const org = yield* seedOrganization()
          const config = yield* call("POST", "/api/v1/organizations/telephony-configs", {
            apiKey: org.apiKey,
            body: { name: "simulator", config: { provider: "simulator", ring_seconds: 60 }, is_default_outbound: true }
          })
          expect(config.status).toBe(200)
          const agent = yield* call("POST", "/api/v1/workflow/create/definition", {
            apiKey: org.apiKey,
            body: { name: "Upgrade agent", workflow_definition: definition }
          })
          const placed = yield* call("POST", `/api/v1/public/agent/workflow/${agent.body.workflow_uuid}`, {
            apiKey: org.apiKey,
            body: { phone_number: "+14155550100" }
          })
          expect(placed.status).toBe(200)
          const sql = yield* SqlClient.SqlClient
          const [row] = yield* sql<{ id: number }>`SELECT id FROM call_attempts WHERE run_id = ${placed.body.workflow_run_id}`
          return AttemptId.make(Number(row!.id))
        }).pipe(Effect.provide(app), Effect.orDie)
        const token = yield* Effect.provide(Effect.flatMap(MediaTokens, (tokens) => tokens.issue({ attemptId, provider: "simulator" })), app)

        yield* Effect.scoped(Effect.gen(function*() {
          // The token's row is locked while the handshake and the connection's end arrive, so the server
          // checks the token only after the connection is closing (on either database, every time).
          yield* Effect.provide(
            Effect.flatMap(SqlClient.SqlClient, (sql) =>
              sql.withTransaction(Effect.gen(function*() {
                yield* sql`UPDATE media_stream_tokens SET expires_at = expires_at`
                yield* upgradeThenHangUp(port, `/api/v1/telephony/media/simulator/${token}`)
                yield* sleep(300)
              }))),
            app
          ).pipe(Effect.orDie)
          // The token is used up once the server has checked it and gone on to the upgrade.
          const used = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ used: number }>`SELECT COUNT(*) AS used FROM media_stream_tokens WHERE used_at IS NOT NULL`)
          for (let i = 0; i < 200 && Number((yield* Effect.provide(Effect.orDie(used), app))[0]!.used) === 0; i++) yield* sleep(25)
          yield* sleep(500)
        }))
        const again = yield* Effect.provide(Effect.flatMap(MediaTokens, (tokens) => tokens.redeem({ token, provider: "simulator" })), app)
        expect(again._tag).toBe("None")

        // Without a bound on the upgrade, this close waits for ever; with it, it takes the dispatcher's drain at most.
        const closed = yield* Scope.close(scope, Exit.void).pipe(Effect.disconnect, Effect.timeout("40 seconds"), Effect.exit)
        expect(Exit.isSuccess(closed), "the server's shutdown was held by the abandoned upgrade").toBe(true)
      }), 90_000)
  }
})
