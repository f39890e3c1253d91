/**
 * Nothing is lost across a kill -9 (issue 15): the outbox row is written in the transaction of the
 * change, so events the killed process had not delivered go out after a restart. A real server
 * process (SQLite, and PostgreSQL when available), a real receiver, SIGKILL.
 */
import { Testing } from "@agentline/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Webhook } from "standardwebhooks"
import { api, bootstrap, freePort, prepareCampaign, startServer, tempDir, waitFor } from "./Processes.js"
import { startReceiver } from "./WebhookReceiver.js"
import { decode, WebhookEvent } from "./Wire.js"

describe("event webhooks across a crash", () => {
  for (const dialect of Testing.dialects) {
    it.live(`[${dialect}] events written before a kill -9 and not yet delivered are delivered after the restart`, () =>
      Effect.gen(function*() {
        const db = dialect === "pg" ? (yield* Testing.freshPgDatabase).url : undefined
        const dataDir = tempDir()
        const key = yield* Effect.promise(() => bootstrap(db, dataDir, "hooks"))
        // A short lease: the restarted process takes over the killed one's campaign after 2 s, not 15.
        const env = { AGENTLINE_WEBHOOK_ALLOW_PRIVATE: "true", AGENTLINE_DISPATCHER_LEASE_SECONDS: "2" }
        const first = yield* Effect.promise(() => startServer(db, dataDir, env))
        // The receiver is down while the first process runs: every attempt of it fails.
        const port = yield* Effect.promise(() => freePort())
        const endpoint = yield* Effect.promise(() =>
          api(first.url, key, "POST", "/api/v1/organizations/webhooks", {
            url: `http://127.0.0.1:${port}/hooks`,
            event_types: ["run.started", "run.ended", "campaign.state_changed", "campaign.completed"]
          })
        )
        const { agentId, fileKey } = yield* Effect.promise(() =>
          prepareCampaign(first.url, key, { contacts: 8, prefix: "+1415777", ringSeconds: 1, talkSeconds: 1, limit: 4 })
        )
        const campaign = yield* Effect.promise(() =>
          api(first.url, key, "POST", "/api/v1/campaign/create", {
            name: "hooks", workflow_id: agentId, source_type: "csv", source_id: fileKey, max_concurrency: 4, retry_config: { enabled: false }
          })
        )
        yield* Effect.promise(() => api(first.url, key, "POST", `/api/v1/campaign/${campaign.id}/start`))
        yield* Effect.promise(() =>
          waitFor("calls", async () => (await api(first.url, key, "GET", `/api/v1/campaign/${campaign.id}`)).executed_count >= 2)
        )
        yield* Effect.promise(() => first.kill())

        const receiver = yield* Effect.acquireRelease(Effect.promise(() => startReceiver(port)), (r) => Effect.promise(() => r.close()))
        const second = yield* Effect.acquireRelease(Effect.promise(() => startServer(db, dataDir, env)), (s) => Effect.promise(() => s.kill()))
        yield* Effect.promise(() =>
          waitFor("completion", async () => (await api(second.url, key, "GET", `/api/v1/campaign/${campaign.id}`)).state === "completed")
        )
        const runs = (yield* Effect.promise(() => api(second.url, key, "GET", `/api/v1/workflow/${agentId}/runs?limit=100`))).runs as Array<
          { id: number }
        >
        expect(runs.length).toBe(8)
        // Every run's start and end, and the campaign's completion, arrive — the killed process's included.
        const got = () => receiver.received().map((r) => decode(WebhookEvent, new Webhook(endpoint.secret).verify(r.body, r.headers)))
        yield* Effect.promise(() =>
          waitFor("every event", () => {
            const events = got()
            return runs.every((run) =>
              events.some((e) => e.type === "run.started" && e.data.run_id === run.id) &&
              events.some((e) => e.type === "run.ended" && e.data.run_id === run.id)
            ) && events.some((e) => e.type === "campaign.completed")
          }, 60_000)
        )
        // In order per run, even across the crash.
        for (const run of runs) {
          expect(got().filter((e) => e.data.run_id === run.id).map((e) => e.type).slice(0, 2)).toEqual(["run.started", "run.ended"])
        }
      }).pipe(Effect.scoped), 180_000)
  }
})
